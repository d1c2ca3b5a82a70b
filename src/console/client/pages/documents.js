import { useEffect, useRef, useState } from 'preact/hooks';
import { qs } from '../api.js';
import { ErrorBox, formatTime, html, humanize, indexIncluded, Pager, TableWrap } from '../ui.js';

const PAGE_SIZE = 25;
/**
 * While a document is still being read its page is asked again (one request, never one per row),
 * soon at first and then less often, so a document no worker takes never eats the rate limit.
 */
export const pollDelay = (n) => Math.min(30_000, 1500 * 1.3 ** n);
export const STATUS_TONE = { extracted: 'ok', failed: 'bad', processing: 'info', pending: 'warn' };
const busy = (d) =>
  d.attributes.extraction_status === 'pending' || d.attributes.extraction_status === 'processing';

function navigate(params) {
  location.hash = `#/documents${qs(params)}`;
}

/** The shipments a document is linked to, by their B/L numbers from `included`. */
export function LinkedShipments({ doc, index }) {
  const refs = doc.relationships?.shipments?.data ?? [];
  if (!refs.length) return '—';
  return refs.map((ref, i) => {
    const s = index.get(`shipment:${ref.id}`);
    const label = s?.attributes?.bill_of_lading_number ?? 'Shipment';
    return html`${i ? ', ' : ''}<a href=${`#/shipments/${ref.id}`}>${label}</a>`;
  });
}

/** A file input sent as multipart/form-data (`file`, optional `name`) to POST /v2/documents. */
function UploadForm({ api, onUploaded }) {
  const fileRef = useRef(null);
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const [sending, setSending] = useState(false);

  async function submit(e) {
    e.preventDefault();
    const file = fileRef.current?.files?.[0];
    if (!file) return setError(new Error('Choose a file first.'));
    const form = new FormData();
    form.append('file', file, file.name);
    if (name.trim()) form.append('name', name.trim());
    setSending(true);
    setError(null);
    try {
      const doc = await api.upload('/documents', form);
      fileRef.current.value = '';
      setName('');
      onUploaded(doc.data);
    } catch (err) {
      setError(err);
    } finally {
      setSending(false);
    }
  }

  return html`<form class="panel" onSubmit=${submit} aria-labelledby="upload-h">
    <h2 id="upload-h">Upload a document</h2>
    <div class="row">
      <div class="field">
        <label for="doc-file">Upload document</label>
        <input id="doc-file" type="file" required accept=".pdf,.png,.jpg,.jpeg,.tif,.tiff,application/pdf,image/png,image/jpeg,image/tiff" ref=${fileRef} />
      </div>
      <div class="field">
        <label for="doc-name">Name (optional)</label>
        <input id="doc-name" maxlength="255" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
      </div>
      <button type="submit" disabled=${sending}>${sending ? 'Uploading…' : 'Upload'}</button>
    </div>
    <p class="hint">PDF, PNG, JPEG or TIFF. It is read in the background: bills of lading, arrival notices and invoices have their fields extracted.</p>
    <${ErrorBox} error=${error} />
  </form>`;
}

export function Documents({ api, params }) {
  const page = Number(params.get('page') ?? '1') || 1;
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  const [uploaded, setUploaded] = useState(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let timer;
    let live = true;
    api.get(`/documents${qs({ 'page[number]': page, 'page[size]': PAGE_SIZE, include: 'shipments' })}`).then(
      (d) => {
        if (!live) return;
        setDoc(d);
        if (d.data.some(busy)) timer = setTimeout(() => setReload((n) => n + 1), pollDelay(reload));
      },
      (err) => live && setError(err),
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [reload]);

  const index = indexIncluded(doc);
  return html`<section>
    <h1 tabindex="-1">Documents</h1>
    <${UploadForm}
      api=${api}
      onUploaded=${(d) => {
        setUploaded(d);
        setReload((n) => n + 1);
      }}
    />
    ${
      uploaded
        ? html`<div class="notice" role="status">
          ${uploaded.attributes.name} uploaded; it is being read.
        </div>`
        : null
    }
    <${ErrorBox} error=${error} />
    ${
      doc
        ? html`<${TableWrap} label="Documents table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Extraction</th>
                  <th scope="col">Shipment</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                ${doc.data.map((d) => {
                  const a = d.attributes;
                  return html`<tr key=${d.id}>
                    <td><a href=${`#/documents/${d.id}`}>${a.name}</a></td>
                    <td>${humanize(a.document_type_manual ?? a.document_type)}</td>
                    <td>
                      <span class=${`badge ${STATUS_TONE[a.extraction_status] ?? ''}`}>${humanize(a.extraction_status)}</span>
                      ${a.extraction_failed_reason ? html` <span class="hint">${humanize(a.extraction_failed_reason)}</span>` : null}
                    </td>
                    <td><${LinkedShipments} doc=${d} index=${index} /></td>
                    <td>${formatTime(a.created_at)}</td>
                  </tr>`;
                })}
              </tbody>
            </table>
          </${TableWrap}>
          ${doc.data.length === 0 ? html`<p>No documents yet.</p>` : null}
          <${Pager}
            page=${page}
            size=${PAGE_SIZE}
            total=${doc.meta?.total ?? doc.data.length}
            noun="documents"
            onPage=${(p) => navigate({ page: p })}
          />`
        : null
    }
  </section>`;
}
