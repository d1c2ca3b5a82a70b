// The arrival estimate over time (issue 32): how often the line moved a shipment's POD ETA and by
// how much, drawn as an inline SVG step chart from GET /v2/shipments/{id}/changes. The x axis is
// when each estimate was learnt, the y axis the estimated arrival.
import { useEffect, useState } from 'preact/hooks';
import { formatTime, html } from './ui.js';

const HOUR = 3_600_000;
const W = 640;
const H = 200;
const PAD = { left: 92, right: 16, top: 14, bottom: 30 };

/** The first estimate, then each move, oldest first; `shift` in hours (null from or to nothing). */
export function etaSeries(shipment, changes) {
  const a = shipment.attributes;
  const moves = changes
    .filter((c) => c.attributes.after)
    .map((c) => ({
      at: Date.parse(c.attributes.observed_at),
      before: c.attributes.before ? Date.parse(c.attributes.before) : null,
      after: Date.parse(c.attributes.after),
    }))
    .reverse()
    .map((m) => ({ ...m, shift: m.before === null ? null : (m.after - m.before) / HOUR }));
  const first = moves[0]?.before ?? Date.parse(a.pod_original_eta_at ?? a.pod_eta_at);
  const points = Number.isNaN(first) ? [] : [{ at: Date.parse(a.created_at), eta: first }];
  for (const m of moves) points.push({ at: m.at, eta: m.after });
  return { points, moves };
}

/** "+2 d 4 h", "-6 h": a shift in hours as days and hours. */
export function shiftText(hours) {
  const sign = hours < 0 ? '−' : '+';
  const total = Math.round(Math.abs(hours));
  const d = Math.floor(total / 24);
  const h = total % 24;
  return `${sign}${d ? `${d} d` : ''}${d && h ? ' ' : ''}${h || !d ? `${h} h` : ''}`;
}

function summary(points, moves) {
  if (moves.length === 0) return 'The arrival estimate has not moved since it was first given.';
  const net = (points[points.length - 1].eta - points[0].eta) / HOUR;
  const largest = moves.reduce((m, x) => (Math.abs(x.shift ?? 0) > Math.abs(m.shift ?? 0) ? x : m), moves[0]);
  const times = moves.length === 1 ? 'once' : `${moves.length} times`;
  return `Moved ${times}, ${shiftText(net)} in all; the largest move ${shiftText(largest.shift ?? 0)}.`;
}

function Chart({ points, label, tz }) {
  const t0 = points[0].at;
  const t1 = Math.max(points[points.length - 1].at, Date.now());
  const etas = points.map((p) => p.eta);
  const [lo, hi] = [Math.min(...etas), Math.max(...etas)];
  const span = hi - lo || 2 * HOUR;
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0 || 1)) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - ((v - lo + (hi === lo ? HOUR : 0)) / span) * (H - PAD.top - PAD.bottom);
  let d = `M${x(points[0].at).toFixed(1)},${y(points[0].eta).toFixed(1)}`;
  for (const p of points.slice(1)) d += ` H${x(p.at).toFixed(1)} V${y(p.eta).toFixed(1)}`;
  d += ` H${x(t1).toFixed(1)}`;
  const day = (v) => formatTime(new Date(v).toISOString(), tz);
  return html`<svg class="eta-chart" viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${label}>
    <line class="axis" x1=${PAD.left} y1=${PAD.top} x2=${PAD.left} y2=${H - PAD.bottom} />
    <line class="axis" x1=${PAD.left} y1=${H - PAD.bottom} x2=${W - PAD.right} y2=${H - PAD.bottom} />
    <text x=${PAD.left - 6} y=${y(hi) + 4} text-anchor="end">${day(hi)}</text>
    ${hi !== lo ? html`<text x=${PAD.left - 6} y=${y(lo) + 4} text-anchor="end">${day(lo)}</text>` : null}
    <text x=${PAD.left} y=${H - 8}>Learnt ${formatTime(new Date(t0).toISOString())}</text>
    <text x=${W - PAD.right} y=${H - 8} text-anchor="end">now</text>
    <path class="eta-line" d=${d} fill="none" />
    ${points.map(
      (p, i) =>
        html`<circle class="eta-point" key=${i} cx=${x(p.at).toFixed(1)} cy=${y(p.eta).toFixed(1)} r="4" />`,
    )}
  </svg>`;
}

/** The section of the shipment page; nothing while loading or when the server keeps no history. */
export function EtaHistory({ api, shipment }) {
  const [changes, setChanges] = useState(null);
  useEffect(() => {
    api.get(`/shipments/${shipment.id}/changes?filter[attribute]=pod_eta_at&page[size]=100`).then(
      (d) => setChanges(d.data),
      () => setChanges(false),
    );
  }, [shipment.id]);
  if (!changes) return null;
  const { points, moves } = etaSeries(shipment, changes);
  if (points.length === 0) return null;
  const tz = shipment.attributes.pod_timezone;
  const text = summary(points, moves);
  return html`<section class="panel eta-history" aria-labelledby="eta-h">
    <h2 id="eta-h">Arrival estimate over time</h2>
    <p class="eta-summary">${text}</p>
    <${Chart} points=${points} label=${`Estimated arrival over time. ${text}`} tz=${tz} />
    ${
      moves.length
        ? html`<ol class="eta-moves">
            ${moves.map(
              (m) => html`<li key=${m.at}>
                ${formatTime(new Date(m.at).toISOString())}: ${m.before === null ? '—' : formatTime(new Date(m.before).toISOString(), tz)}
                → ${formatTime(new Date(m.after).toISOString(), tz)}${m.shift === null ? '' : ` (${shiftText(m.shift)})`}
              </li>`,
            )}
          </ol>`
        : null
    }
  </section>`;
}
