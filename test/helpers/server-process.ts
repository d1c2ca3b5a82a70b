import { freePort, type Spawned, spawnNode } from './process.ts';
import { processStorage } from './storage.ts';

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The default account's key, from the first-start banner. */
  key: string;
  server: Spawned;
  stop(): Promise<void>;
}

/**
 * `npm start` as a user runs it, on a database of its own with no account yet (processStorage:
 * migrated, on either engine) and a free port; answers once the banner has printed the key and
 * the server answers /healthz.
 */
export async function startServerProcess(
  engine: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const storage = await processStorage(engine);
  const port = await freePort();
  const server = spawnNode(['src/main.ts'], {
    ...storage.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    server.kill('SIGTERM');
    await server.exited;
    await storage.cleanup();
  };
  try {
    // Starting PGlite takes seconds on a loaded machine.
    const key = (await server.waitFor(/api key: (\S+)/, 180_000))[1]!;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (i > 600) throw new Error(`no /healthz answer:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { origin, key, server, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
