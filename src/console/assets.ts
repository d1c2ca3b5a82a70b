import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The console's files: its own client source (src/console/client, committed as plain ES modules)
// and a few vendored files read straight from node_modules. All are loaded into memory once:
// together they are about 150 kB, and serving from memory needs no path handling per request.

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const CLIENT_DIR = join(dirname(fileURLToPath(import.meta.url)), 'client');

/** URL name under /console/vendor/ -> module specifier resolved (as ES modules) through node_modules. */
const VENDOR: Record<string, string> = {
  'preact.mjs': 'preact',
  'hooks.mjs': 'preact/hooks',
  'htm.mjs': 'htm',
  // Natural Earth land at 1:110m (TopoJSON, 55 kB): drawn under the route on the map.
  'land-110m.json': 'world-atlas/land-110m.json',
};

/** The import map the page declares, so client modules import 'preact' by name. */
export const IMPORT_MAP = JSON.stringify({
  imports: {
    preact: '/console/vendor/preact.mjs',
    'preact/hooks': '/console/vendor/hooks.mjs',
    htm: '/console/vendor/htm.mjs',
  },
});

export function asset(body: Buffer, name: string): Asset {
  return {
    body,
    type: TYPES[extname(name)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Every file the console serves, by URL path (e.g. /console/app.js, /console/vendor/preact.mjs). */
export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const file of walk(CLIENT_DIR)) {
    const rel = relative(CLIENT_DIR, file).split(sep).join('/');
    if (rel === 'index.html') continue;
    assets.set(`/console/${rel}`, asset(readFileSync(file), rel));
  }
  for (const [name, module] of Object.entries(VENDOR)) {
    assets.set(
      `/console/vendor/${name}`,
      asset(readFileSync(fileURLToPath(import.meta.resolve(module))), name),
    );
  }
  return assets;
}

/** The page's HTML with the import map inlined, and the hash the CSP allows it by. */
export function loadIndex(): { html: string; importMapHash: string } {
  const template = readFileSync(join(CLIENT_DIR, 'index.html'), 'utf8');
  return {
    // The committed page declares an empty import map (valid JSON, so tools can parse the file).
    html: template.replace(
      '<script type="importmap">{}</script>',
      `<script type="importmap">${IMPORT_MAP}</script>`,
    ),
    importMapHash: createHash('sha256').update(IMPORT_MAP).digest('base64'),
  };
}
