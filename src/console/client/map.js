// The route map: Natural Earth land (world-atlas, served by this server) under the journey, drawn
// as SVG in a plain longitude/latitude projection. No tiles, no network beyond this origin.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './ui.js';

let landRequest;
let landPath = null;

/** TopoJSON -> SVG paths in lon/-lat space (x = longitude, y = -latitude): land fill and coastline. */
export function topologyToPath(topology) {
  const { scale = [1, 1], translate = [0, 0] } = topology.transform ?? {};
  // Arcs are delta-encoded, quantized positions.
  const arcs = topology.arcs.map((arc) => {
    let x = 0;
    let y = 0;
    return arc.map(([dx, dy]) => {
      x += dx;
      y += dy;
      return [x * scale[0] + translate[0], y * scale[1] + translate[1]];
    });
  });
  const ring = (indexes) => {
    const points = [];
    for (const i of indexes) {
      const arc = i < 0 ? [...arcs[~i]].reverse() : arcs[i];
      points.push(...(points.length ? arc.slice(1) : arc));
    }
    const xy = ([x, y]) => `${x.toFixed(2)} ${(-y).toFixed(2)}`;
    // A ring cut at the antimeridian steps from +180° to -180° (the same meridian on the globe):
    // filled as it is, but its coastline is not drawn across the map there.
    let coast = `M${xy(points[0])}`;
    for (let k = 1; k < points.length; k++)
      coast += `${Math.abs(points[k][0] - points[k - 1][0]) > 180 ? 'M' : 'L'}${xy(points[k])}`;
    return { fill: `M${points.map(xy).join('L')}Z`, coast };
  };
  const fills = [];
  const coasts = [];
  const add = (r) => {
    const { fill, coast } = ring(r);
    fills.push(fill);
    coasts.push(coast);
  };
  const geometry = (g) => {
    if (g.type === 'GeometryCollection') g.geometries.forEach(geometry);
    else if (g.type === 'Polygon') for (const r of g.arcs) add(r);
    else if (g.type === 'MultiPolygon') for (const p of g.arcs) for (const r of p) add(r);
  };
  for (const o of Object.values(topology.objects)) geometry(o);
  return { fill: fills.join(''), coast: coasts.join('') };
}

async function loadLand() {
  landRequest ??= fetch('/console/vendor/land-110m.json')
    .then((r) => r.json())
    .then((topology) => {
      landPath = topologyToPath(topology);
      return landPath;
    });
  return landRequest;
}

/** The view box around every point, padded, at a readable aspect ratio. */
function frame(points) {
  if (points.length === 0) return { x: -180, y: -85, w: 360, h: 170 };
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => -p[1]);
  let x0 = Math.min(...xs);
  let x1 = Math.max(...xs);
  let y0 = Math.min(...ys);
  let y1 = Math.max(...ys);
  const padX = Math.max((x1 - x0) * 0.15, 8);
  const padY = Math.max((y1 - y0) * 0.15, 6);
  x0 -= padX;
  x1 += padX;
  y0 -= padY;
  y1 += padY;
  let w = x1 - x0;
  let h = y1 - y0;
  if (w / h < 1.6) {
    x0 -= (1.6 * h - w) / 2;
    w = 1.6 * h;
  } else if (w / h > 2.4) {
    y0 -= (w / 2.4 - h) / 2;
    h = w / 2.4;
  }
  return { x: x0, y: y0, w, h };
}

/**
 * `route`: { ports: [{ name, label, lon, lat }], lines: [{ coords: [[lon, lat]…], estimated }],
 * vessel: [lon, lat] | null }. A route across the antimeridian is drawn east of it (+360°), with
 * a second copy of the land there.
 */
export function RouteMap({ route, caption }) {
  const [land, setLand] = useState(landPath);
  // Marks and labels are sized in screen pixels: the drawing's scale follows the figure's width.
  const figure = useRef(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    loadLand().then(setLand, () => setLand(''));
    const el = figure.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth || 640));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const all = [...route.ports.map((p) => [p.lon, p.lat]), ...route.lines.flatMap((l) => l.coords)];
  if (route.vessel) all.push(route.vessel);
  const lons = all.map((p) => p[0]);
  const wraps = lons.length > 0 && Math.max(...lons) - Math.min(...lons) > 180;
  const shift = ([lon, lat]) => [wraps && lon < 0 ? lon + 360 : lon, lat];
  const view = frame(all.map(shift));
  const unit = view.w / width; // one screen pixel
  const d = (coords) =>
    `M${coords
      .map(shift)
      .map(([x, y]) => `${x.toFixed(3)} ${(-y).toFixed(3)}`)
      .join('L')}`;
  const names = route.ports.map((p) => p.name).join(', ');

  return html`<figure class="map" ref=${figure}>
    <svg
      viewBox=${`${view.x} ${view.y} ${view.w} ${view.h}`}
      role="img"
      aria-label=${names ? `Route map: ${names}` : 'Route map'}
      preserveAspectRatio="xMidYMid meet"
    >
      ${
        land
          ? [0, ...(wraps ? [360] : [])].map(
              (dx) => html`<g transform=${`translate(${dx} 0)`}>
                <path class="land" d=${land.fill} />
                <path class="coast" d=${land.coast} vector-effect="non-scaling-stroke" />
              </g>`,
            )
          : null
      }
      ${route.lines.map(
        (l) =>
          html`<path class=${`route${l.estimated ? ' estimated' : ''}`} d=${d(l.coords)} vector-effect="non-scaling-stroke" />`,
      )}
      ${route.ports.map((p) => {
        const [x, y] = shift([p.lon, p.lat]);
        // Labels of ports on the right half extend leftwards, so they stay inside the frame.
        const right = x > view.x + view.w / 2;
        return html`<g>
          <circle class="port" cx=${x} cy=${-y} r=${5 * unit} vector-effect="non-scaling-stroke" />
          <text
            x=${right ? x - 8 * unit : x + 8 * unit}
            y=${-y - 7 * unit}
            font-size=${13 * unit}
            stroke-width=${3 * unit}
            text-anchor=${right ? 'end' : 'start'}
          >
            ${p.label ? `${p.label} ` : ''}${p.name}
          </text>
        </g>`;
      })}
      ${
        route.vessel
          ? (
              () => {
                const [x, y] = shift(route.vessel);
                return html`<circle class="vessel" cx=${x} cy=${-y} r=${6 * unit} vector-effect="non-scaling-stroke"><title>Vessel</title></circle>`;
              }
            )()
          : null
      }
    </svg>
    ${caption ? html`<figcaption>${caption}</figcaption>` : null}
  </figure>`;
}

/** A route from the API's map GeoJSON (GET /v2/containers/{id}/map_geojson). */
export function routeFromGeoJson(fc) {
  const route = { ports: [], lines: [], vessel: null };
  for (const f of fc.features ?? []) {
    const p = f.properties ?? {};
    const g = f.geometry ?? {};
    if (g.type === 'Point' && p.feature_type === 'port') {
      route.ports.push({
        name: p.name ?? '',
        label: p.label ?? '',
        lon: g.coordinates[0],
        lat: g.coordinates[1],
      });
    } else if (g.type === 'Point' && p.feature_type === 'current_vessel') {
      route.vessel = g.coordinates;
    } else if (g.type === 'LineString') {
      route.lines.push({
        coords: g.coordinates,
        estimated: String(p.feature_type ?? '').startsWith('estimated'),
      });
    }
  }
  return route;
}

/**
 * A route from the ports the journey's events name, in order (a straight line between calls),
 * continued to ports the shipment still expects (dashed). Used when the server has no map_geojson.
 */
export function routeFromPorts(visited, expected) {
  const ports = [];
  for (const p of [...visited, ...expected]) {
    if (p.lat == null || p.lon == null) continue;
    if (ports.some((q) => q.locode === p.locode)) continue;
    ports.push(p);
  }
  const reached = ports.filter((p) => !p.expected);
  const lines = [];
  if (reached.length > 1) lines.push({ coords: reached.map((p) => [p.lon, p.lat]), estimated: false });
  const last = reached.at(-1);
  const ahead = ports.filter((p) => p.expected);
  if (ahead.length)
    lines.push({ coords: [...(last ? [last] : []), ...ahead].map((p) => [p.lon, p.lat]), estimated: true });
  return { ports, lines: lines.filter((l) => l.coords.length > 1), vessel: null };
}
