import { useEffect, useState } from 'preact/hooks';
import { ErrorBox, formatTime, html, humanize, indexIncluded, TableWrap } from '../ui.js';
import { LinkedShipments, pollDelay, STATUS_TONE } from './documents.js';

// A signed download link works for a few minutes (DOCUMENT_DOWNLOAD_URL_TTL_MS, 5 min by
// default); one older than this is asked for again when clicked.
const LINK_FRESH_MS = 60_000;

/** One extracted value as text: places as "Name (LOCODE)", parties by name, rows one per line. */
function valueText(v) {
  if (v === null || v === undefined || v === '') return '—';
  if (Array.isArray(v)) return v.length ? v.map(valueText).join('\n') : '—';
  if (typeof v === 'object') {
    if ('locode' in v || 'name' in v) {
      const rest = Object.entries(v)
        .filter(([k, x]) => k !== 'name' && k !== 'locode' && x !== null && x !== '')
        .map(([, x]) => valueText(x));
      const head = v.name && v.locode ? `${v.name} (${v.locode})` : (v.name ?? v.locode ?? '');
      return [head, ...rest].filter(Boolean).join(', ') || '—';
    }
    const parts = Object.entries(v)
      .filter(([, x]) => x !== null && x !== '' && !(Array.isArray(x) && !x.length))
      .map(([k, x]) => `${humanize(k)}: ${valueText(x)}`);
    return parts.length ? parts.join(' · ') : '—';
  }
  return String(v);
}

// Field names humanize well except for abbreviations.
const LABELS = { scac: 'SCAC', hs_code: 'HS code' };

function Confidence({ value }) {
  if (typeof value !== 'number') return html`<span class="hint">—</span>`;
  return html`<span class=${`confidence ${value < 0.6 ? 'low' : ''}`}>${Math.round(value * 100)} %</span>`;
}

function Fields({ rep, manual }) {
  if (!rep) return html`<p>No fields were extracted from this document.</p>`;
  const { payload, field_confidence: conf } = rep.attributes;
  const keys = Object.keys(payload ?? {});
  return html`<${TableWrap} label="Extracted fields table">
    <table>
      <caption class="hint">Schema ${rep.attributes.schema_version}</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Value</th>
          <th scope="col">Confidence</th>
        </tr>
      </thead>
      <tbody>
        ${keys.map(
          (k) => html`<tr key=${k}>
            <th scope="row">${LABELS[k] ?? humanize(k)}</th>
            <td class="pre">${valueText(manual?.[k] ?? payload[k])}</td>
            <td><${Confidence} value=${conf?.[k]} /></td>
          </tr>`,
        )}
      </tbody>
    </table>
  </${TableWrap}>`;
}

/** The document's link: GET /v2/documents/{id}/download_url answers a signed URL needing no key. */
function DownloadLink({ api, id }) {
  const [link, setLink] = useState(null);
  const [error, setError] = useState(null);
  const fetchLink = () =>
    api.get(`/documents/${id}/download_url`).then((d) => {
      const l = { url: d.download_url, at: Date.now() };
      setLink(l);
      return l;
    });
  useEffect(() => {
    fetchLink().catch(setError);
  }, [id]);
  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!link) return null;
  return html`<a
    class="button"
    href=${link.url}
    target="_blank"
    rel="noopener noreferrer"
    onClick=${(e) => {
      if (Date.now() - link.at < LINK_FRESH_MS) return;
      e.preventDefault();
      fetchLink().then((l) => window.open(l.url, '_blank', 'noopener'), setError);
    }}
  >Open document</a>`;
}

export function DocumentDetail({ api, id }) {
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let timer;
    let live = true;
    api.get(`/documents/${encodeURIComponent(id)}?include=last_document_representation,shipments`).then(
      (d) => {
        if (!live) return;
        setDoc(d);
        const s = d.data.attributes.extraction_status;
        if (s === 'pending' || s === 'processing')
          timer = setTimeout(() => setReload((n) => n + 1), pollDelay(reload));
      },
      (err) => live && setError(err),
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, reload]);

  if (error)
    return html`<section><h1 tabindex="-1">Document</h1><${ErrorBox} error=${error} /><p><a href="#/documents">All documents</a></p></section>`;
  if (!doc) return html`<section><h1 tabindex="-1">Document</h1><p class="loading">Loading…</p></section>`;
  const d = doc.data;
  const a = d.attributes;
  const index = indexIncluded(doc);
  const repRef = d.relationships.last_document_representation?.data;
  const rep = repRef ? index.get(`document_representation:${repRef.id}`) : undefined;
  return html`<section>
    <p><a href="#/documents">← All documents</a></p>
    <h1 tabindex="-1">Document ${a.name}</h1>
    <div class="doc-split">
      <div>
        <dl class="facts panel">
          <div><dt>Type</dt><dd>${humanize(a.document_type_manual ?? a.document_type)}</dd></div>
          <div>
            <dt>Extraction</dt>
            <dd>
              <span class=${`badge ${STATUS_TONE[a.extraction_status] ?? ''}`}>${humanize(a.extraction_status)}</span>
              ${a.extraction_failed_reason ? html` ${humanize(a.extraction_failed_reason)}` : null}
            </dd>
          </div>
          <div><dt>Shipment</dt><dd><${LinkedShipments} doc=${d} index=${index} /></dd></div>
          <div><dt>File</dt><dd class="mono">${a.file_name}</dd></div>
          <div><dt>Format, size</dt><dd>${a.file_content_type ?? '—'}, ${(a.file_size_bytes / 1024).toFixed(1)} kB</dd></div>
          <div><dt>Source</dt><dd>${humanize(a.source)}</dd></div>
          <div><dt>Created</dt><dd>${formatTime(a.created_at)}</dd></div>
          ${a.classification_notes ? html`<div><dt>Classification</dt><dd>${a.classification_notes}</dd></div>` : null}
        </dl>
        <p><${DownloadLink} api=${api} id=${d.id} /></p>
      </div>
      <div>
        <h2>Extracted fields</h2>
        ${
          a.extraction_status === 'pending' || a.extraction_status === 'processing'
            ? html`<p role="status">The document is being read…</p>`
            : html`<${Fields} rep=${rep} manual=${a.extracted_data_manual} />`
        }
      </div>
    </div>
  </section>`;
}
