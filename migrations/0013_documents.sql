-- Documents (issue 14): uploaded or e-mailed shipping documents, their extracted representations,
-- links to shipments and containers, and the e-mails they came in. Numbered with a gap after the
-- migrations of the time so parallel branches do not collide; the runner applies files in order.

-- Secret that signs download links and direct-upload ids when DOCUMENT_URL_SECRET is unset: made
-- once by whichever process needs it first, shared by every process through the database.
create table document_secrets (
  id integer primary key check (id = 1),
  secret text not null
);

-- One inbound e-mail address per account: <local_part>@<INBOUND_EMAIL_DOMAIN>.
create table inbound_addresses (
  account_id uuid primary key references accounts (id) on delete cascade,
  local_part text not null unique,
  created_at timestamptz not null default now()
);

create table email_submissions (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  subject text,
  body text,
  from_addresses text[] not null default '{}',
  to_addresses text[] not null default '{}',
  cc_addresses text[] not null default '{}',
  message_id text,
  in_reply_to text,
  reference_ids text[] not null default '{}',
  content_type text,
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index email_submissions_by_account on email_submissions (account_id, created_at desc, id desc);

-- Direct uploads (ActiveStorage style): the blob is declared, then its bytes PUT, then a document
-- made from it. A blob whose bytes never arrived, or did not match, makes no document.
create table document_blobs (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  filename text not null,
  byte_size bigint not null,
  checksum text not null,
  content_type text,
  storage_key text,
  sha256 text,
  detected_type text,
  uploaded_at timestamptz,
  created_at timestamptz not null default now()
);

create table documents (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  name text not null,
  file_name text not null,
  file_content_type text not null,
  file_size_bytes bigint not null,
  sha256 text not null,
  storage_key text not null,
  source text not null check (source in ('upload', 'api', 'email', 'split_document')),
  email_submission_id uuid references email_submissions (id) on delete set null,
  document_type text not null default 'other',
  document_type_manual text,
  classification_notes text,
  extraction_status text not null default 'pending'
    check (extraction_status in ('pending', 'processing', 'extracted', 'failed')),
  extraction_failed_reason text,
  extracted_data_manual jsonb,
  -- Text of the last read (PDF text layer or OCR), so reclassify and reextract need no new OCR.
  extracted_text jsonb,
  text_source text,
  last_representation_id uuid,
  -- B/L, booking and container numbers read from the document: what links it to shipments, now
  -- and when a matching shipment or container appears later (the triggers below).
  link_numbers text[] not null default '{}',
  -- The tracking request this document created (auto-tracking), if any.
  tracking_request_id uuid,
  -- Work queue (the same shape as tracking requests and shipments): due when
  -- next_process_at <= now() and no live lease; pending_action says what to do.
  pending_action text check (pending_action in ('process', 'reextract', 'reclassify', 'relink', 'rotate')),
  rotate_degrees integer,
  next_process_at timestamptz,
  attempt_count integer not null default 0,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Byte-identical content once per account; deleted documents are removed, so they do not count.
create unique index documents_one_content on documents (account_id, sha256);
create index documents_by_account on documents (account_id, created_at desc, id desc);
create index documents_due on documents (next_process_at) where next_process_at is not null;
create index documents_by_email on documents (email_submission_id) where email_submission_id is not null;

create table document_representations (
  id uuid primary key,
  document_id uuid not null references documents (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  schema_version text not null,
  payload jsonb not null,
  field_confidence jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index document_representations_by_document on document_representations (document_id, created_at);

create table document_shipments (
  document_id uuid not null references documents (id) on delete cascade,
  shipment_id uuid not null references shipments (id) on delete cascade,
  account_id uuid not null,
  primary key (document_id, shipment_id)
);
create index document_shipments_by_shipment on document_shipments (shipment_id);

create table document_containers (
  document_id uuid not null references documents (id) on delete cascade,
  container_id uuid not null references containers (id) on delete cascade,
  account_id uuid not null,
  primary key (document_id, container_id)
);
create index documents_link_numbers on documents using gin (link_numbers);

-- A shipment or container that appears after its document was read (the tracking request the
-- document created succeeded, or another one did) links to it in the same transaction.
create or replace function link_documents_to_new_shipments() returns trigger language plpgsql as $$
begin
  insert into document_shipments (document_id, shipment_id, account_id)
  select d.id, s.id, s.account_id
    from new_shipments s
    join documents d on d.account_id = s.account_id
     and d.link_numbers && array[s.bill_of_lading_number, s.normalized_number]
  on conflict do nothing;
  return null;
end;
$$;
create trigger shipments_link_documents after insert on shipments referencing new table as new_shipments
  for each statement execute function link_documents_to_new_shipments();

create or replace function link_documents_to_new_containers() returns trigger language plpgsql as $$
begin
  insert into document_containers (document_id, container_id, account_id)
  select d.id, c.id, c.account_id
    from new_containers c
    join documents d on d.account_id = c.account_id and d.link_numbers && array[c.number]
  on conflict do nothing;
  insert into document_shipments (document_id, shipment_id, account_id)
  select d.id, c.shipment_id, c.account_id
    from new_containers c
    join documents d on d.account_id = c.account_id and d.link_numbers && array[c.number]
  on conflict do nothing;
  return null;
end;
$$;
create trigger containers_link_documents after insert on containers referencing new table as new_containers
  for each statement execute function link_documents_to_new_containers();
