// Shared view helpers: htm bound to Preact (no build step), formatting, JSON:API look-ups.
import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';

export const html = htm.bind(h);

/** `included` resources by "type:id". */
export function indexIncluded(doc) {
  const map = new Map();
  for (const r of doc?.included ?? []) map.set(`${r.type}:${r.id}`, r);
  return map;
}

/** The included resource a to-one relationship points at, if any. */
export function related(index, resource, name) {
  const ref = resource?.relationships?.[name]?.data;
  return ref ? index.get(`${ref.type}:${ref.id}`) : undefined;
}

/** A date (and time) in the place's own time zone when known, else the browser's. */
export function formatTime(iso, timeZone, withTime = true) {
  if (!iso) return '—';
  const d = new Date(iso);
  const opts = withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' };
  try {
    return new Intl.DateTimeFormat('en-GB', { ...opts, ...(timeZone ? { timeZone } : {}) }).format(d);
  } catch {
    return new Intl.DateTimeFormat('en-GB', opts).format(d);
  }
}

export const humanize = (s) =>
  s
    ? String(s)
        .replace(/_/g, ' ')
        .replace(/^\w/, (c) => c.toUpperCase())
    : '—';

/** Whole days from a to b (b later is positive). */
export function daysBetween(a, b) {
  return Math.round((new Date(b).getTime() - new Date(a).getTime()) / 86_400_000);
}

/** A place as "Name (LOCODE)", or whatever part is known. */
export function placeLabel(name, locode) {
  if (name && locode) return `${name} (${locode})`;
  return name || locode || '—';
}

/** Wraps a wide table so it scrolls inside its own box on a narrow screen. */
export function TableWrap({ label, children }) {
  return html`<div class="table-wrap" role="region" aria-label=${label} tabindex="0">${children}</div>`;
}

/** A table's header row: one column header per entry (text or markup). */
export function TableHead({ columns }) {
  return html`<thead>
    <tr>
      ${columns.map((c) => html`<th scope="col">${c}</th>`)}
    </tr>
  </thead>`;
}

export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="alert" role="alert">${error.message ?? String(error)}</div>`;
}

export function Pager({ page, size, total, onPage, noun }) {
  const pages = Math.max(1, Math.ceil(total / size));
  return html`<nav class="pager" aria-label="Pages">
    <button class="secondary" type="button" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>Previous</button>
    <span>Page ${page} of ${pages} · ${total} ${noun}</span>
    <button class="secondary" type="button" disabled=${page >= pages} onClick=${() => onPage(page + 1)}>Next</button>
  </nav>`;
}

/**
 * "Export CSV": the list at `path` (its filters in force, every page) downloaded as `filename`.
 * `note` says what the export leaves out, e.g. a filter only the console applies.
 */
export function ExportButton({ api, path, filename, label = 'Export CSV', note }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  async function run() {
    setBusy(true);
    setError(null);
    try {
      await api.download(path, filename);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return html`<span class="export">
    <button class="secondary" type="button" disabled=${busy} onClick=${run} title=${note}>
      ${busy ? 'Exporting…' : label}
    </button>
    <${ErrorBox} error=${error} />
  </span>`;
}
