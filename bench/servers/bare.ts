import { createServer } from 'node:http';

// The traffic baseline (issue 15): a bare node:http "hello world", no framework, run as its own
// process like the API (`node bench/servers/bare.ts --port P`) with the flags of npm start.

const i = process.argv.indexOf('--port');
const port = i > 0 ? Number(process.argv[i + 1]) : 0;
const body = JSON.stringify({ hello: 'world' });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening on ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
