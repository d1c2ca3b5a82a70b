import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, migratedPgliteDir } from './db.ts';

/**
 * Storage for a child process, migrated as on both engines: a PGlite data directory (a copy of
 * the migrated template, see db.ts), or a fresh PostgreSQL database. `empty`: a PGlite data
 * directory with nothing in it, for a test of a server's very first start (which creates the
 * cluster and migrates it).
 */
export async function processStorage(
  engine: string,
  opts: { empty?: boolean } = {},
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (engine === 'pglite') {
    const dir = opts.empty ? mkdtempSync(join(tmpdir(), 'trk-')) : await migratedPgliteDir();
    return {
      env: { DATA_DIR: dir, DATABASE_URL: '' },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const db = await createTestDatabase('postgres');
  await db.close();
  return { env: { DATABASE_URL: db.url! }, cleanup: () => db.destroy() };
}

/** JSON:API calls to a server process, retried while it is still starting. */
export function apiClient(port: number, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: `Token ${key}`, 'content-type': 'application/vnd.api+json' },
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: res.status, body: await res.json() };
      } catch (err) {
        if (i > 600) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
}
