import { useEffect, useState } from 'preact/hooks';
import { qs } from '../api.js';
import { STATUSES, shipmentStatus } from '../status.js';
import {
  daysBetween,
  ErrorBox,
  ExportButton,
  formatTime,
  html,
  indexIncluded,
  Pager,
  placeLabel,
  TableHead,
  TableWrap,
} from '../ui.js';

const PAGE_SIZE = 25;
/** With a status filter the server cannot apply, rows are filtered here from larger pages. */
const FILTER_PAGE_SIZE = 100;

function navigate(params) {
  location.hash = `#/shipments${qs(params)}`;
}

/** ETA at the port of discharge; a later ETA than first announced is a slip, highlighted. */
function Eta({ a }) {
  if (a.pod_ata_at) return html`<span>Arrived ${formatTime(a.pod_ata_at, a.pod_timezone, false)}</span>`;
  if (!a.pod_eta_at) return '—';
  const slip =
    a.pod_original_eta_at && a.pod_eta_at > a.pod_original_eta_at
      ? daysBetween(a.pod_original_eta_at, a.pod_eta_at)
      : 0;
  return html`<span>${formatTime(a.pod_eta_at, a.pod_timezone, false)}</span>
    ${
      slip > 0
        ? html` <span class="slip" title=${`First announced ${formatTime(a.pod_original_eta_at, a.pod_timezone, false)}`}
          >slipped +${slip} d</span
        >`
        : null
    }`;
}

function Row({ s, containers }) {
  const a = s.attributes;
  const status = shipmentStatus(s, containers);
  return html`<tr>
    <td><a href=${`#/shipments/${s.id}`}>${a.bill_of_lading_number}</a></td>
    <td>${a.shipping_line_short_name} <span class="hint">${a.shipping_line_scac}</span></td>
    <td class="wrap">
      ${`${placeLabel(a.port_of_lading_name, a.port_of_lading_locode)} → ${placeLabel(a.port_of_discharge_name, a.port_of_discharge_locode)}`}
    </td>
    <td><${Eta} a=${a} /></td>
    <td><span class=${`badge ${status.tone}`}>${status.label}</span></td>
    <td>${containers.length}</td>
    <td class="wrap">${a.tags.map((t) => html`<span class="tag">${t}</span>`)}</td>
  </tr>`;
}

/** Matches from GET /v2/search, when this server has it: partial numbers, references, tags. */
function SearchResults({ api, query }) {
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api.get(`/search${qs({ query })}`).then(setDoc, setError);
  }, [query]);
  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!doc) return html`<p class="loading">Searching…</p>`;
  return html`<section class="panel" aria-label="Search results">
    <h2>Matches for “${query}”</h2>
    ${doc.data.length === 0 ? html`<p>Nothing matches.</p>` : null}
    <ul>
      ${doc.data.map((r) => {
        const a = r.attributes ?? {};
        const shipmentId = a.shipment_id ?? (a.entity_type === 'shipment' ? r.id : null);
        const label = `${a.number ?? r.id} · ${a.entity_type}${a.scac ? ` · ${a.scac}` : ''}`;
        return html`<li>${shipmentId ? html`<a href=${`#/shipments/${shipmentId}`}>${label}</a>` : label}</li>`;
      })}
    </ul>
  </section>`;
}

export function Shipments({ api, params }) {
  const q = params.get('q') ?? '';
  const status = params.get('status') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const [draft, setDraft] = useState(q);
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);

  const clientFilter = status && status !== 'tracking_stopped';
  const size = clientFilter ? FILTER_PAGE_SIZE : PAGE_SIZE;

  const stopped = status === 'tracking_stopped' ? 'true' : status ? 'false' : undefined;
  // The filters the server applies; the export takes the same ones (every page, not this one).
  const filters = { q: q || undefined, 'filter[tracking_stopped]': stopped };
  useEffect(() => {
    api
      .get(`/shipments${qs({ include: 'containers', 'page[number]': page, 'page[size]': size, ...filters })}`)
      .then(setDoc, setError);
  }, []);

  const index = doc ? indexIncluded(doc) : new Map();
  const containersOf = (s) =>
    (s.relationships.containers.data ?? []).map((r) => index.get(`container:${r.id}`)).filter(Boolean);
  const rows = (doc?.data ?? [])
    .map((s) => ({ s, containers: containersOf(s) }))
    .filter((r) => !status || shipmentStatus(r.s, r.containers).id === status);

  return html`<section>
    <h1 tabindex="-1">Shipments</h1>
    <form
      class="row panel"
      role="search"
      onSubmit=${(e) => {
        e.preventDefault();
        navigate({ q: draft.trim(), status });
      }}
    >
      <div class="field">
        <label for="search">Search</label>
        <input
          id="search"
          type="search"
          placeholder="B/L, booking, container or reference number"
          size="34"
          value=${draft}
          onInput=${(e) => setDraft(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="status-filter">Status</label>
        <select id="status-filter" value=${status} onChange=${(e) => navigate({ q, status: e.currentTarget.value })}>
          <option value="">All</option>
          ${STATUSES.map((s) => html`<option value=${s.id}>${s.label}</option>`)}
        </select>
      </div>
      <button type="submit">Search</button>
      ${q || status ? html`<button class="secondary" type="button" onClick=${() => navigate({})}>Clear</button>` : null}
    </form>
    <div class="row">
      <${ExportButton}
        api=${api}
        path=${`/shipments${qs(filters)}`}
        filename="shipments.csv"
        label="Export shipments (CSV)"
        note=${clientFilter ? 'The status is worked out here, not by the server: the export has every status.' : undefined}
      />
      <${ExportButton}
        api=${api}
        path="/containers"
        filename="containers.csv"
        label="Export containers (CSV)"
        note="Every container of the account"
      />
    </div>
    ${
      clientFilter
        ? html`<p class="hint">The export has shipments of every status but stopped or not: this status is worked out
          here, from each shipment's milestones.</p>`
        : null
    }
    ${
      clientFilter
        ? html`<p class="hint">Status is worked out from each shipment's milestones, so this filter is applied to
          ${FILTER_PAGE_SIZE} shipments at a time.</p>`
        : null
    }
    ${q ? html`<${SearchResults} api=${api} query=${q} />` : null}
    <${ErrorBox} error=${error} />
    ${!doc && !error ? html`<p class="loading">Loading shipments…</p>` : null}
    ${
      doc
        ? html`<${TableWrap} label="Shipments table">
            <table>
              <${TableHead} columns=${['B/L', 'Carrier', 'POL → POD', 'ETA', 'Status', 'Containers', 'Tags']} />
              <tbody>
                ${rows.map((r) => html`<${Row} key=${r.s.id} s=${r.s} containers=${r.containers} />`)}
              </tbody>
            </table>
          </${TableWrap}>
          ${
            rows.length === 0
              ? html`<p>
                ${
                  q
                    ? `No shipment has the number “${q}”.`
                    : 'No shipments here yet. Track one under Tracking requests.'
                }
              </p>`
              : null
          }
          <${Pager}
            page=${page}
            size=${size}
            total=${doc.meta?.total ?? rows.length}
            noun="shipments"
            onPage=${(p) => navigate({ q, status, page: p })}
          />`
        : null
    }
  </section>`;
}
