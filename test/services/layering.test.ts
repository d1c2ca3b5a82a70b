import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// Layering of the resource code (issue 11, "services under thin routes"; "storage knows nothing of
// HTTP"), read from import statements:
// - src/jsonapi/ (envelopes, document schemas) and every serializer and document builder import no
//   HTTP layer and no Fastify: routes and webhook payload rendering both use them;
// - services (service.ts) take explicit dependencies: no app context, no Fastify;
// - src/db/ imports no HTTP, accounts or cache code: the change feed publishes, caches subscribe.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return files(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** What `file` imports: repository-relative paths for relative imports, else the bare specifier. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2])!;
    return spec.startsWith('.')
      ? relative(ROOT, resolve(ROOT, dirname(file), spec))
          .split('\\')
          .join('/')
      : spec;
  });
}

function offending(selected: string[], bad: (target: string) => boolean): string[] {
  return selected.flatMap((f) =>
    importsOf(f)
      .filter(bad)
      .map((t) => `${f} imports ${t}`),
  );
}

const all = files('src');
const isFastify = (t: string) => t === 'fastify' || t.startsWith('@fastify/');
const isHttp = (t: string) => t.startsWith('src/http/') || isFastify(t);

describe('layering of resources, services and storage', () => {
  it('the import reader sees imports (guard against a rule that cannot fail)', () => {
    assert.ok(importsOf('src/shipments/routes.ts').includes('src/shipments/service.ts'));
    assert.ok(importsOf('src/shipments/routes.ts').includes('@fastify/type-provider-typebox'));
  });

  it('src/jsonapi, serializers and document builders import no HTTP layer or Fastify', () => {
    const selected = all.filter(
      (f) =>
        f.startsWith('src/jsonapi/') ||
        (/\/(serializers?|documents|include)\.ts$/.test(f) && !f.includes('/routes/')),
    );
    assert.ok(selected.length >= 10, selected.join(', '));
    assert.deepEqual(offending(selected, isHttp), []);
  });

  it('services take explicit dependencies: no app context, no Fastify', () => {
    const services = all.filter((f) => f.endsWith('/service.ts'));
    assert.ok(services.length >= 6, services.join(', '));
    assert.deepEqual(
      offending(services, (t) => t === 'src/app-context.ts' || isFastify(t)),
      [],
    );
  });

  it('src/db imports no HTTP, account or cache code', () => {
    assert.deepEqual(
      offending(
        all.filter((f) => f.startsWith('src/db/')),
        (t) => isHttp(t) || t.startsWith('src/accounts/') || /cache/.test(t),
      ),
      [],
    );
  });

  it('resource folders do not import each other in both directions', () => {
    const part = (p: string) => (p.startsWith('src/') ? p.split('/')[1]!.replace(/\.ts$/, '') : null);
    const resources = ['reference', 'shipments', 'shipping-lines', 'tracking-requests'];
    const edges = new Set<string>();
    for (const f of all) {
      const from = part(f)!;
      if (!resources.includes(from)) continue;
      for (const t of importsOf(f)) {
        const to = part(t);
        if (to && to !== from && resources.includes(to)) edges.add(`${from} -> ${to}`);
      }
    }
    const both = [...edges].filter((e) => {
      const [a, b] = e.split(' -> ');
      return edges.has(`${b} -> ${a}`);
    });
    assert.deepEqual(both, []);
  });
});
