import Fastify from 'fastify';

// The baseline: a bare Fastify "hello world", run as its own process like the API
// (`node bench/servers/hello.ts --port P`), no logger, one JSON route.

const i = process.argv.indexOf('--port');
const port = i > 0 ? Number(process.argv[i + 1]) : 0;
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`listening on ${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
