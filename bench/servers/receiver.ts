import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

// The webhook receiver of the benchmark, its own process:
// `node bench/servers/receiver.ts --port P --secret S [--header X-SERVICE-Webhook-Signature]`.
// Answers every POST 204 after checking the legacy signature (hex HMAC-SHA256 of the body with the
// secret); GET /stats answers the counts as JSON.

const arg = (name: string, def = '') => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const port = Number(arg('port', '0'));
const key = Buffer.from(arg('secret'), 'utf8');
const header = arg('header', 'X-SERVICE-Webhook-Signature').toLowerCase();
const stats = { received: 0, valid: 0, invalid: 0 };

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(stats));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    stats.received++;
    const given = Buffer.from(String(req.headers[header] ?? ''), 'utf8');
    const expected = Buffer.from(
      createHmac('sha256', key).update(Buffer.concat(chunks)).digest('hex'),
      'utf8',
    );
    if (given.length === expected.length && timingSafeEqual(given, expected)) stats.valid++;
    else stats.invalid++;
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening on ${typeof addr === 'object' && addr ? addr.port : port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
