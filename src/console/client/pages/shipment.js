import { useEffect, useState } from 'preact/hooks';
import { EtaHistory } from '../eta-chart.js';
import { RouteMap, routeFromGeoJson, routeFromPorts } from '../map.js';
import { shipmentStatus } from '../status.js';
import {
  ErrorBox,
  ExportButton,
  formatTime,
  html,
  humanize,
  indexIncluded,
  placeLabel,
  related,
  TableHead,
  TableWrap,
} from '../ui.js';

const INCLUDE = 'containers,port_of_lading,port_of_discharge,destination,pod_terminal';

const EVENT_LABELS = {
  empty_out: 'Empty picked up',
  full_in: 'Gated in full',
  vessel_loaded: 'Loaded on vessel',
  vessel_departed: 'Vessel departed',
  transshipment_arrived: 'Arrived at transshipment port',
  transshipment_discharged: 'Discharged at transshipment port',
  transshipment_loaded: 'Loaded at transshipment port',
  transshipment_departed: 'Departed transshipment port',
  feeder_arrived: 'Feeder arrived',
  feeder_discharged: 'Discharged from feeder',
  feeder_loaded: 'Loaded on feeder',
  feeder_departed: 'Feeder departed',
  vessel_arrived: 'Vessel arrived',
  vessel_berthed: 'Vessel berthed',
  vessel_discharged: 'Discharged',
  available: 'Available for pickup',
  not_available: 'Not available',
  full_out: 'Picked up (full out)',
  delivered: 'Delivered',
  empty_in: 'Empty returned',
  rail_loaded: 'Loaded on rail',
  rail_departed: 'Rail departed',
  rail_arrived: 'Rail arrived',
  rail_unloaded: 'Unloaded from rail',
  arrived_at_inland_destination: 'Arrived at inland destination',
};

const eventLabel = (name) => {
  const short = String(name).replace(/^container\.transport\./, '');
  return EVENT_LABELS[short] ?? humanize(short);
};

function sizeType(a) {
  const parts = [
    a.equipment_length ? `${a.equipment_length}′` : null,
    a.equipment_height === 'high_cube' ? 'HC' : null,
    a.equipment_type,
  ].filter(Boolean);
  const text = parts.join(' ') || '—';
  return a.iso_equipment_code ? `${text} (${a.iso_equipment_code})` : text;
}

function availability(a) {
  if (!a.availability_known) return html`<span class="hint">Unknown</span>`;
  return a.available_for_pickup
    ? html`<span class="badge ok">Available</span>`
    : html`<span class="badge warn">Not available</span>`;
}

function portOf(resource, expected = false) {
  if (!resource) return null;
  const a = resource.attributes;
  return { name: a.name, locode: a.code, lat: a.latitude, lon: a.longitude, label: '', expected };
}

/** Transport events in order, then what the shipment still expects (estimated). */
function timelineItems(shipment, events, eventIndex) {
  const a = shipment.attributes;
  const items = events.map((e) => {
    const loc = related(eventIndex, e, 'location');
    const terminal = related(eventIndex, e, 'terminal');
    const vessel = related(eventIndex, e, 'vessel');
    return {
      key: e.id,
      what: eventLabel(e.attributes.event),
      place: placeLabel(loc?.attributes.name, e.attributes.location_locode),
      terminal: terminal?.attributes.name,
      vessel: vessel?.attributes.name,
      voyage: e.attributes.voyage_number,
      at: e.attributes.timestamp,
      tz: e.attributes.timezone,
      estimated: false,
    };
  });
  const expect = (key, what, name, locode, at, tz) =>
    at && items.push({ key, what, place: placeLabel(name, locode), at, tz, estimated: true });
  if (!a.pol_atd_at && !events.some((e) => e.attributes.event.endsWith('vessel_departed')))
    expect(
      'etd',
      'Vessel departure',
      a.port_of_lading_name,
      a.port_of_lading_locode,
      a.pol_etd_at,
      a.pol_timezone,
    );
  if (!a.pod_ata_at)
    expect(
      'eta',
      'Vessel arrival',
      a.port_of_discharge_name,
      a.port_of_discharge_locode,
      a.pod_eta_at,
      a.pod_timezone,
    );
  if (a.destination_locode && a.destination_locode !== a.port_of_discharge_locode && !a.destination_ata_at)
    expect(
      'dest',
      'Arrival at destination',
      a.destination_name,
      a.destination_locode,
      a.destination_eta_at,
      a.destination_timezone,
    );
  return items;
}

function Timeline({ items }) {
  if (items.length === 0) return html`<p>No events yet.</p>`;
  return html`<ol class="timeline">
    ${items.map(
      (i) => html`<li key=${i.key} class=${i.estimated ? 'estimated' : ''}>
        <div class="what">${i.what}</div>
        <div>${i.place}${i.terminal ? ` · ${i.terminal}` : ''}</div>
        ${
          i.vessel || i.voyage
            ? html`<div class="meta">Vessel ${i.vessel ?? '—'}${i.voyage ? `, voyage ${i.voyage}` : ''}</div>`
            : null
        }
        <div class="meta">${i.estimated ? 'Estimated' : 'Actual'}: ${formatTime(i.at, i.tz)}</div>
      </li>`,
    )}
  </ol>`;
}

function Journey({ api, shipment, index, container }) {
  const [events, setEvents] = useState(null);
  const [geo, setGeo] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setEvents(null);
    setGeo(null);
    api
      .get(`/containers/${container.id}/transport_events?include=location,vessel,terminal`)
      .then(setEvents, setError);
    api.get(`/containers/${container.id}/map_geojson`).then(setGeo, () => setGeo(false));
  }, [container.id]);

  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!events) return html`<p class="loading">Loading the journey…</p>`;
  const eventIndex = indexIncluded(events);
  const items = timelineItems(shipment, events.data, eventIndex);
  const a = shipment.attributes;
  const visited = events.data.map((e) => portOf(related(eventIndex, e, 'location'))).filter(Boolean);
  if (visited.length === 0) {
    const pol = portOf(related(index, shipment, 'port_of_lading'));
    if (pol) visited.push(pol);
  }
  // Without a map (no coordinates yet), the ports still ahead are joined after those visited.
  const expected = [];
  if (!a.pod_ata_at) expected.push(portOf(related(index, shipment, 'port_of_discharge'), true));
  if (!a.destination_ata_at) expected.push(portOf(related(index, shipment, 'destination'), true));
  const fromApi = geo && Array.isArray(geo.features) && geo.features.length > 0;
  const route = fromApi ? routeFromGeoJson(geo) : routeFromPorts(visited, expected.filter(Boolean));
  const caption = fromApi
    ? 'Route from the container’s map GeoJSON; dashed legs are estimated.'
    : 'Ports of the journey joined in order; the dashed part is still expected. Land: Natural Earth.';

  return html`<div>
    <h2 id="journey-h">Journey of ${container.attributes.number}</h2>
    <${Timeline} items=${items} />
    <section aria-label="Map" role="region">
      <h2>Map</h2>
      <${RouteMap} route=${route} caption=${caption} />
    </section>
  </div>`;
}

export function ShipmentDetail({ api, id }) {
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  const [selected, setSelected] = useState(null);
  useEffect(() => {
    api.get(`/shipments/${encodeURIComponent(id)}?include=${INCLUDE}`).then(setDoc, setError);
  }, [id]);

  if (error)
    return html`<section><h1 tabindex="-1">Shipment</h1><${ErrorBox} error=${error} /><a href="#/shipments">All shipments</a></section>`;
  if (!doc) return html`<section><h1 tabindex="-1">Shipment</h1><p class="loading">Loading…</p></section>`;
  const s = doc.data;
  const a = s.attributes;
  const index = indexIncluded(doc);
  const containers = (s.relationships.containers.data ?? [])
    .map((r) => index.get(`container:${r.id}`))
    .filter(Boolean);
  const status = shipmentStatus(s, containers);
  const current = containers.find((c) => c.id === selected) ?? containers[0];
  const terminal = related(index, s, 'pod_terminal');

  return html`<section>
    <p><a href="#/shipments">← Shipments</a></p>
    <h1 tabindex="-1">Shipment ${a.bill_of_lading_number} <span class=${`badge ${status.tone}`}>${status.label}</span></h1>
    <dl class="facts panel">
      <div><dt>Carrier</dt><dd>${a.shipping_line_name} (${a.shipping_line_scac})</dd></div>
      <div><dt>Port of lading</dt><dd>${placeLabel(a.port_of_lading_name, a.port_of_lading_locode)}</dd></div>
      <div><dt>Port of discharge</dt><dd>${placeLabel(a.port_of_discharge_name, a.port_of_discharge_locode)}${terminal ? ` · ${terminal.attributes.name}` : ''}</dd></div>
      ${a.destination_locode ? html`<div><dt>Destination</dt><dd>${placeLabel(a.destination_name, a.destination_locode)}</dd></div>` : null}
      <div><dt>Vessel</dt><dd>${a.pod_vessel_name ?? '—'}${a.pod_voyage_number ? `, voyage ${a.pod_voyage_number}` : ''}</dd></div>
      <div><dt>Departure</dt><dd>${a.pol_atd_at ? `Actual ${formatTime(a.pol_atd_at, a.pol_timezone)}` : `Estimated ${formatTime(a.pol_etd_at, a.pol_timezone)}`}</dd></div>
      <div><dt>Arrival</dt><dd>${a.pod_ata_at ? `Actual ${formatTime(a.pod_ata_at, a.pod_timezone)}` : `Estimated ${formatTime(a.pod_eta_at, a.pod_timezone)}`}</dd></div>
      ${a.ref_numbers.length ? html`<div><dt>References</dt><dd>${a.ref_numbers.join(', ')}</dd></div>` : null}
      ${a.tags.length ? html`<div><dt>Tags</dt><dd>${a.tags.map((t) => html`<span class="tag">${t}</span>`)}</dd></div>` : null}
      ${
        a.line_tracking_stopped_at
          ? html`<div><dt>Tracking stopped</dt><dd>${formatTime(a.line_tracking_stopped_at)} (${humanize(a.line_tracking_stopped_reason)})</dd></div>`
          : null
      }
    </dl>
    <${EtaHistory} api=${api} shipment=${s} />
    <h2>Containers</h2>
    ${
      containers.length > 0
        ? html`<${ExportButton}
            api=${api}
            path=${`/containers?filter[shipment_id]=${encodeURIComponent(s.id)}`}
            filename=${`containers-${s.attributes.bill_of_lading_number ?? s.id}.csv`}
            label="Export containers (CSV)"
          />`
        : null
    }
    <${TableWrap} label="Containers table">
      <table>
        <${TableHead} columns=${['Number', 'Size/type', 'Status', 'Availability', 'Last free day', 'Journey']} />
        <tbody>
          ${containers.map(
            (c) => html`<tr key=${c.id}>
              <td class="mono">${c.attributes.number}</td>
              <td>${sizeType(c.attributes)}</td>
              <td>${humanize(c.attributes.current_status)}</td>
              <td>${availability(c.attributes)}</td>
              <td>${c.attributes.pickup_lfd ? formatTime(c.attributes.pickup_lfd, c.attributes.pod_timezone, false) : '—'}</td>
              <td>
                <button
                  class="secondary"
                  type="button"
                  aria-pressed=${current?.id === c.id ? 'true' : 'false'}
                  onClick=${() => setSelected(c.id)}
                >
                  Show journey
                </button>
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
    </${TableWrap}>
    ${containers.length === 0 ? html`<p>The carrier has not reported containers yet.</p>` : null}
    ${current ? html`<${Journey} key=${current.id} api=${api} shipment=${s} index=${index} container=${current} />` : null}
  </section>`;
}
