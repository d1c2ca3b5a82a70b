import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from './helpers/db.ts';
import { type DocCommand, shellBlocks, shellCommands } from './helpers/doc-commands.ts';
import { type ServerProcess, startServerProcess } from './helpers/server-process.ts';

// The README's curl walk-through and the `sh` blocks of docs/next-steps.md, run as written: real
// bash and curl processes against `npm start` on an empty database, KEY and API set as the README
// says (API's origin replaced by the test server's), each curl's status checked against the
// `# NNN` comment under it (200 when none). So the documents cannot drift from the product.

const ROOT = new URL('../', import.meta.url).pathname;
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');

// Every curl reports its status on stderr, where it neither reaches jq nor an assigned variable.
const PRELUDE = `curl() { command curl -w '%{stderr}HTTP %{http_code}\\n' "$@"; }\n`;

function bash(script: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', `${PRELUDE}${script}`], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

for (const engine of ENGINES) {
  describe(`the documents' commands, run as written [${engine}]`, () => {
    let s: ServerProcess;
    const env: Record<string, string> = {};
    let trackingRequestId: string | undefined;

    /** What a reader puts in for a `<placeholder>`: the value the walk-through has led to. */
    const placeholders: Record<string, () => Promise<string>> = {
      id: async () => {
        assert.ok(trackingRequestId, 'no tracking request created before <id>');
        return trackingRequestId;
      },
      // "A second later it is created": wait for the shipment's first container.
      'container id': async () => {
        for (let i = 0; i < 600; i++) {
          const res = await fetch(`${env.API}/containers`, {
            headers: { authorization: `Token ${env.KEY}` },
          });
          const id = ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id;
          if (id) return id;
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error('no container appeared');
      },
    };

    async function run(command: DocCommand, where: string) {
      if (command.assigns === 'KEY') {
        env.KEY = s.key;
        return;
      }
      if (command.assigns === 'API') {
        const written = new URL(/^API=(\S+)/.exec(command.text)![1]!);
        env.API = `${s.origin}${written.pathname}`;
        return;
      }
      let text = command.text;
      for (const [, name] of text.matchAll(/<([a-z][a-z ]*)>/g)) {
        const resolve = placeholders[name!];
        assert.ok(resolve, `${where}: unknown placeholder <${name}> in ${text}`);
        text = text.replace(`<${name}>`, await resolve());
      }
      const script = command.assigns ? `${text}\nprintf '%s' "$${command.assigns}"` : text;
      const r = await bash(script, env);
      const statuses = [...r.stderr.matchAll(/^HTTP (\d{3})$/gm)].map((m) => Number(m[1]));
      assert.equal(r.code, 0, `${where}: ${text}\n${r.stderr}`);
      assert.ok(statuses.length > 0, `${where}: no curl ran: ${text}`);
      for (const status of statuses)
        assert.equal(status, command.status, `${where}: ${text}\n${r.stdout.slice(0, 500)}`);
      if (command.assigns) {
        assert.ok(r.stdout && r.stdout !== 'null', `${where}: ${command.assigns} is empty`);
        env[command.assigns] = r.stdout;
      } else if (command.status === 201) {
        const body = JSON.parse(r.stdout);
        if (body.data?.type === 'tracking_request') trackingRequestId = body.data.id;
      }
    }

    before(async () => {
      // Tests have no network: the README's example.com receiver is allowlisted by name, so creating
      // the webhook needs no DNS answer (its deliveries fail in the background, unseen).
      s = await startServerProcess(engine, { WEBHOOK_ALLOWLIST: 'example.com' });
    });
    after(() => s?.stop());

    test("README.md's walk-through with curl", { timeout: 300_000 }, async () => {
      const commands = shellBlocks(read('README.md'), '## A walk-through with curl').flatMap(shellCommands);
      assert.ok(commands.filter((c) => !c.assigns).length >= 5, 'the walk-through has lost its commands');
      for (const command of commands) await run(command, 'README.md');
    });

    test('docs/next-steps.md', { timeout: 300_000 }, async () => {
      const commands = shellBlocks(read('docs/next-steps.md')).flatMap(shellCommands);
      assert.ok(
        commands.some((c) => c.text.startsWith('curl -sg')),
        'no curl -g example',
      );
      for (const command of commands) await run(command, 'docs/next-steps.md');
    });
  });
}
