import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp } from './app.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from './engine.ts';
import { startReceiver } from './receiver.ts';

/** An API with a worker, a documents directory of its own and a webhook receiver for document events. */
export async function startDocumentStack(engine: 'pglite' | 'postgres', env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'docs-'));
  const t = await startTestApp(engine, {
    ...FAST_ENGINE_ENV,
    DATA_DIR: dir,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWLIST: '127.0.0.0/8',
    DOCUMENT_RETRY_BASE_MS: '20',
    ...env,
  });
  const worker: Engine = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
  const receiver = await startReceiver();
  const hook = await t.request('POST', '/v2/webhooks', {
    body: {
      data: {
        type: 'webhook',
        attributes: {
          url: receiver.url('/hook'),
          events: ['document.extracted', 'document.extraction_failed', 'tracking_request.succeeded'],
        },
      },
    },
  });
  if (hook.status !== 201) throw new Error(`webhook not created: ${hook.text}`);
  return {
    t,
    dir,
    receiver,
    worker,
    /** multipart/form-data upload of one file. */
    async upload(bytes: Buffer, fileName: string, opts: { name?: string; key?: string } = {}) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
      if (opts.name) form.append('name', opts.name);
      const res = await fetch(`${t.url}/v2/documents`, {
        method: 'POST',
        headers: { authorization: `Token ${opts.key ?? t.key}` },
        body: form,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    /** Waits until the document leaves pending/processing; answers it with its representation. */
    async settled(id: string, key?: string, timeoutMs = 60_000) {
      return eventually(
        async () => {
          const r = await t.request(
            'GET',
            `/v2/documents/${id}?include=last_document_representation,shipments`,
            {
              key: key ?? t.key,
            },
          );
          const s = r.body?.data?.attributes?.extraction_status;
          return s === 'extracted' || s === 'failed' ? r.body : null;
        },
        timeoutMs,
        `document ${id} processed`,
      );
    },
    async close() {
      await worker.stop();
      await receiver.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type DocumentStack = Awaited<ReturnType<typeof startDocumentStack>>;
export type { TestApp };
