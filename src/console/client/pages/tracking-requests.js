import { useEffect, useState } from 'preact/hooks';
import { qs } from '../api.js';
import { ErrorBox, ExportButton, formatTime, html, humanize, Pager, TableHead, TableWrap } from '../ui.js';

const PAGE_SIZE = 25;
const STATUSES = ['pending', 'awaiting_manifest', 'created', 'failed', 'tracking_stopped'];
const TYPES = [
  { id: 'bill_of_lading', label: 'Bill of lading' },
  { id: 'booking_number', label: 'Booking number' },
  { id: 'container', label: 'Container' },
];
const STATUS_TONE = { created: 'ok', failed: 'bad', awaiting_manifest: 'warn', pending: 'info' };

function navigate(params) {
  location.hash = `#/tracking-requests${qs(params)}`;
}

/** Number, type and SCAC; "Infer carrier" asks POST /v2/tracking_requests/infer_number. */
function TrackForm({ api, onCreated }) {
  const [number, setNumber] = useState('');
  const [type, setType] = useState('bill_of_lading');
  const [scac, setScac] = useState('');
  const [inference, setInference] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  async function infer() {
    if (!number.trim()) return setError(new Error('Enter a number first.'));
    setError(null);
    try {
      const doc = await api.post('/tracking_requests/infer_number', { number: number.trim() });
      const a = doc.data.attributes;
      setType(a.request_type);
      const picked = a.shipping_line.selected ?? a.shipping_line.candidates[0];
      if (picked) setScac(picked.scac);
      setInference(a);
    } catch (err) {
      setError(err);
    }
  }

  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const doc = await api.post('/tracking_requests', {
        data: {
          type: 'tracking_request',
          attributes: { request_number: number.trim(), request_type: type, scac: scac.trim().toUpperCase() },
        },
      });
      setNumber('');
      setScac('');
      setInference(null);
      onCreated(doc.data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const line = inference?.shipping_line;
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="track-h">
    <h2 id="track-h">Track a shipment</h2>
    <div class="row">
      <div class="field">
        <label for="tr-number">Number</label>
        <input id="tr-number" required value=${number} onInput=${(e) => setNumber(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="tr-type">Type</label>
        <select id="tr-type" value=${type} onChange=${(e) => setType(e.currentTarget.value)}>
          ${TYPES.map((t) => html`<option value=${t.id}>${t.label}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="tr-scac">SCAC</label>
        <input id="tr-scac" required size="6" maxlength="10" value=${scac} onInput=${(e) => setScac(e.currentTarget.value)} />
      </div>
      <button class="secondary" type="button" onClick=${infer}>Infer carrier</button>
      <button type="submit" disabled=${busy}>Track</button>
    </div>
    ${
      line
        ? html`<p class="hint" role="status">
          ${
            line.selected
              ? `Carrier: ${line.selected.name} (${line.selected.scac}).`
              : line.candidates.length
                ? `Possible carriers: ${line.candidates.map((c) => `${c.name} (${c.scac})`).join(', ')}.`
                : 'No carrier could be inferred from this number; enter its SCAC.'
          }
        </p>`
        : null
    }
    <${ErrorBox} error=${error} />
  </form>`;
}

export function TrackingRequests({ api, params }) {
  const status = params.get('status') ?? '';
  // #/tracking-requests?number=…: one number's requests (the Import page links rows here).
  const number = params.get('number') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  const [created, setCreated] = useState(null);
  const [reload, setReload] = useState(0);
  const filters = { 'filter[status]': status, 'filter[request_number]': number };

  useEffect(() => {
    api
      .get(`/tracking_requests${qs({ 'page[number]': page, 'page[size]': PAGE_SIZE, ...filters })}`)
      .then(setDoc, setError);
  }, [reload]);

  return html`<section>
    <h1 tabindex="-1">Tracking requests</h1>
    <${TrackForm}
      api=${api}
      onCreated=${(tr) => {
        setCreated(tr);
        setReload((n) => n + 1);
      }}
    />
    ${
      created
        ? html`<div class="notice" role="status">
          Tracking request for ${created.attributes.request_number} created (${humanize(created.attributes.status)}).
        </div>`
        : null
    }
    <div class="row">
      <div class="field">
        <label for="tr-status">Status</label>
        <select id="tr-status" value=${status} onChange=${(e) => navigate({ status: e.currentTarget.value, number })}>
          <option value="">All</option>
          ${STATUSES.map((s) => html`<option value=${s}>${humanize(s)}</option>`)}
        </select>
      </div>
      <button class="secondary" type="button" onClick=${() => setReload((n) => n + 1)}>Refresh</button>
      <${ExportButton}
        api=${api}
        path=${`/tracking_requests${qs(filters)}`}
        filename="tracking_requests.csv"
        label="Export requests (CSV)"
      />
      <a href="#/import">Import a spreadsheet…</a>
    </div>
    ${
      number
        ? html`<p>
          Number <span class="mono">${number}</span> only ·
          <a href=${`#/tracking-requests${qs({ status })}`}>All numbers</a>
        </p>`
        : null
    }
    <${ErrorBox} error=${error} />
    ${
      doc
        ? html`<${TableWrap} label="Tracking requests table">
            <table>
              <${TableHead} columns=${['Number', 'Type', 'SCAC', 'Status', 'Failure reason', 'Created', 'Shipment']} />
              <tbody>
                ${doc.data.map((tr) => {
                  const a = tr.attributes;
                  const shipment = tr.relationships.tracked_object?.data;
                  return html`<tr key=${tr.id}>
                    <td class="mono">${a.request_number}</td>
                    <td>${humanize(a.request_type)}</td>
                    <td>${a.scac}</td>
                    <td>
                      <span class=${`badge ${STATUS_TONE[a.status] ?? ''}`}>${humanize(a.status)}</span>
                      ${a.is_retrying ? html` <span class="hint">retrying</span>` : null}
                    </td>
                    <td>${a.failed_reason ? humanize(a.failed_reason) : '—'}</td>
                    <td>${formatTime(a.created_at)}</td>
                    <td>${shipment ? html`<a href=${`#/shipments/${shipment.id}`}>Open</a>` : '—'}</td>
                  </tr>`;
                })}
              </tbody>
            </table>
          </${TableWrap}>
          ${doc.data.length === 0 ? html`<p>No tracking requests${status ? ' with this status' : ''}.</p>` : null}
          <${Pager}
            page=${page}
            size=${PAGE_SIZE}
            total=${doc.meta?.total ?? doc.data.length}
            noun="requests"
            onPage=${(p) => navigate({ status, number, page: p })}
          />`
        : null
    }
  </section>`;
}
