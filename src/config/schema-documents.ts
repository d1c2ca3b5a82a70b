// Configuration of documents (uploads, storage, reading) and of inbound e-mail.
import { boolean, custom, integer, oneOf, optionalInteger, text } from './setting.ts';

const MB = 1024 * 1024;
const optionalSecret = (description: string) =>
  custom('string', '(unset)', description, ({ name, env }): string | null => env[name] || null);

export const DOCUMENT_SCHEMA = {
  DOCUMENT_MAX_BYTES: integer(
    25 * MB,
    'Largest uploaded document (multipart, direct upload or e-mail attachment); larger is a 413.',
    { min: 1024, max: 1024 * MB },
  ),
  DOCUMENT_DOWNLOAD_URL_TTL_MS: integer(
    300_000,
    'How long a signed link from GET /v2/documents/{id}/download_url works.',
    { min: 1, max: 7 * 86_400_000 },
  ),
  DOCUMENTS_AUTO_TRACK: boolean(
    true,
    'A transport document whose B/L (else booking) number and carrier match no shipment creates a tracking request.',
  ),
  DOCUMENT_STORAGE: oneOf(
    'fs',
    ['fs', 's3'],
    'fs: files under DOCUMENT_STORAGE_DIR; s3: an S3-compatible bucket (DOCUMENT_S3_*), for API and worker processes on several machines.',
  ),
  DOCUMENT_STORAGE_DIR: custom(
    'path',
    '<DATA_DIR>/documents',
    'Directory of document files with DOCUMENT_STORAGE=fs.',
    ({ name, env }): string | null => env[name] || null,
  ),
  DOCUMENT_URL_SECRET: optionalSecret(
    'Key that signs download links and direct-upload ids; unset: a random key made once and kept in the database.',
  ),
  DOCUMENT_S3_ENDPOINT: custom(
    'URL',
    '(unset)',
    'S3 endpoint, e.g. https://s3.eu-west-1.amazonaws.com or a MinIO URL.',
    ({ name, env, read }): string | null =>
      read.url(name, ['http:', 'https:'], 'https://s3.eu-west-1.amazonaws.com')
        ? env[name]!.trim().replace(/\/+$/, '')
        : null,
  ),
  DOCUMENT_S3_REGION: text('us-east-1', 'S3 region (SigV4 signing).'),
  DOCUMENT_S3_BUCKET: optionalSecret('S3 bucket (path-style addressing).'),
  DOCUMENT_S3_ACCESS_KEY_ID: optionalSecret('S3 access key id.'),
  DOCUMENT_S3_SECRET_ACCESS_KEY: optionalSecret('S3 secret access key.'),
  DOCUMENT_OCR: boolean(
    true,
    'Read scans and image-only pages with OCR (tesseract.js, English data from disk).',
  ),
  DOCUMENT_WORKER_CONCURRENCY: integer(
    1,
    'Documents read at once per worker process (OCR is CPU-bound: about one per core).',
    { min: 1, max: 64 },
  ),
  DOCUMENT_READER_IDLE_MS: integer(
    60_000,
    'The document reader (a child process that reads PDFs and runs OCR) ends after this long without a document; the next one starts it again.',
    { min: 1, max: 86_400_000 },
  ),
  DOCUMENT_READ_TIMEOUT_MS: integer(
    240_000,
    'A document read (text layer, OCR) that takes longer fails, is retried, and its reader process is ended; keep it below the 5-minute document lease.',
    { min: 1, max: 86_400_000 },
  ),
  DOCUMENT_RETRY_BASE_MS: integer(
    10_000,
    'First retry delay after an unexpected processing error; doubles each retry.',
    { min: 1 },
  ),
  DOCUMENT_RETRY_MAX: integer(
    5,
    'Retries after unexpected processing errors before extraction_failed (processing_error).',
    { min: 0, max: 100 },
  ),
  SMTP_PORT: optionalInteger(
    0,
    65535,
    'Port of the inbound SMTP listener (worker role); unset: no listener.',
  ),
  SMTP_HOST: custom(
    'IP address or host name',
    '127.0.0.1',
    'Address the SMTP listener binds.',
    ({ name, read }) => read.hostName(name, '127.0.0.1'),
  ),
  INBOUND_EMAIL_DOMAIN: custom(
    'host name',
    'localhost',
    "Domain of the accounts' inbound addresses (<token>@<domain>); point its MX at SMTP_PORT.",
    ({ name, read }) => read.hostName(name, 'localhost').toLowerCase(),
  ),
  SMTP_MAX_BYTES: integer(
    40 * MB,
    'Largest accepted message; larger is refused during the SMTP transaction.',
    { min: 1024, max: 1024 * MB },
  ),
};
