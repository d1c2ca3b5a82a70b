import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ENGINES } from '../helpers/db.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { mimeMessage, sendMail } from '../helpers/smtp-client.ts';
import { apiClient, processStorage } from '../helpers/storage.ts';

// As users run it: the CLI prints the account's inbound address; `npm start` with SMTP_PORT set
// takes mail for it and the worker reads the attachment.

for (const engine of ENGINES) {
  describe(`documents: CLI and server process [${engine}]`, () => {
    test('accounts create/show print inbound_email; mail to it becomes an extracted document', async () => {
      const s = await processStorage(engine);
      const docsDir = mkdtempSync(join(tmpdir(), 'docs-proc-'));
      const env = {
        ...s.env,
        INBOUND_EMAIL_DOMAIN: 'docs.example',
        DOCUMENT_STORAGE_DIR: docsDir,
        LOG_LEVEL: 'warn',
      };
      try {
        const created = await runNode(['src/cli/main.ts', 'accounts', 'create', 'Forwarder', '--json'], env);
        assert.equal(created.code, 0, created.stderr);
        const acct = JSON.parse(created.stdout);
        assert.match(acct.inbound_email, /^docs-[0-9a-f]{12}@docs\.example$/);
        const shown = await runNode(['src/cli/main.ts', 'accounts', 'show', acct.account_id, '--json'], env);
        assert.equal(shown.code, 0, shown.stderr);
        assert.equal(JSON.parse(shown.stdout).inbound_email, acct.inbound_email);
        assert.equal((await runNode(['src/cli/main.ts', 'accounts', 'show', 'nope'], env)).code, 2);

        const port = await freePort();
        const smtpPort = await freePort();
        const server = spawnNode(['src/main.ts'], {
          ...env,
          PORT: String(port),
          HOST: '127.0.0.1',
          SMTP_PORT: String(smtpPort),
          WORKER_POLL_INTERVAL_MS: '50',
          LOG_LEVEL: 'info',
        });
        try {
          await server.waitFor(/smtp listener started/);
          const doc = transportDoc(61, 'arrival_notice');
          const pdf = await renderPdf(layoutOps(doc, 'inline'), 'times');
          const sent = await sendMail(
            smtpPort,
            { from: 'desk@carrier.example', to: [acct.inbound_email] },
            mimeMessage({
              from: 'desk@carrier.example',
              to: [acct.inbound_email],
              subject: 'AN',
              text: 'attached',
              messageId: '<p1@carrier.example>',
              date: new Date(),
              attachments: [{ filename: 'an.pdf', contentType: 'application/pdf', content: pdf }],
            }),
          );
          assert.equal(sent.data, 250, sent.dataText);
          const api = apiClient(port, acct.api_key);
          const got = await eventually(
            async () => {
              const r = await api('GET', '/v2/documents?include=last_document_representation');
              return r.body.data?.[0]?.attributes?.extraction_status === 'extracted' ? r.body : null;
            },
            60_000,
            'document extracted by the server process',
          );
          assert.equal(got.data[0].attributes.source, 'email');
          assert.equal(
            got.included[0].attributes.payload.bill_of_lading_number,
            doc.expect.bill_of_lading_number,
          );
          server.kill('SIGTERM');
          assert.equal(await server.exited, 0);
        } finally {
          server.kill('SIGKILL');
        }
      } finally {
        await s.cleanup();
        rmSync(docsDir, { recursive: true, force: true });
      }
    });
  });
}
