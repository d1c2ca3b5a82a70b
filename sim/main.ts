import { parseArgs } from 'node:util';
import type { CarrierQuirks } from './quirks.ts';
import { startSimulator } from './server.ts';

// CLI: node sim/main.ts --port 4000 [--speed 3600] [--host 127.0.0.1] ...
// (npm run carrier-sim -- --port 4000). See docs/simulator.md.

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4000' },
    host: { type: 'string', default: '127.0.0.1' },
    speed: { type: 'string', default: '1' },
    epoch: { type: 'string' },
    'base-path': { type: 'string' },
    'not-found-status': { type: 'string', default: '200' },
    'not-found-reason': { type: 'string' },
    'page-links': { type: 'string', default: 'cursor' },
    'require-equipment-with': { type: 'string' },
    'api-version': { type: 'string' },
    'paging-header': { type: 'string' },
    'requests-per-minute': { type: 'string' },
    'rate-window-ms': { type: 'string' },
    'flaky-hang-ms': { type: 'string' },
    header: { type: 'string', multiple: true },
    'oauth-client-id': { type: 'string' },
    'oauth-client-secret': { type: 'string' },
    'oauth-expires-in': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log(`Usage: node sim/main.ts [options]
  --port N                 listen port (default 4000; 0 = any free port)
  --host H                 listen address (default 127.0.0.1)
  --speed X                simulated seconds per real second (default 1; 3600 = an hour per second)
  --epoch ISO              anchor of every journey (default: now)
  --base-path /p           mount the DCSA API under /p/v2/events
  --not-found-status 404   answer unknown references with 404 instead of 200 []
  --not-found-reason TEXT  answer unknown references with 400 and this error message
  --page-links url         send Next-Page as a full URL instead of a cursor
carrier modes (docs/simulator.md, "Carrier modes"):
  --require-equipment-with carrierBookingReference[,transportDocumentReference]
                           answer 400 to these filters without an equipmentReference
  --api-version V          answer 400 to requests without API-Version: V
  --paging-header NAME     name the next page in this header instead of Next-Page(-Cursor)
  --requests-per-minute N  answer 429 + Retry-After beyond N requests a minute
  --rate-window-ms N       the rate limit's window (default 60000)
  --flaky-hang-ms N        how long SIMFLAKY hangs (default 30000)
  --header 'name: value'   require this header on /v2 requests (repeatable)
  --oauth-client-id ID --oauth-client-secret S [--oauth-expires-in SECONDS]
                           enable POST /oauth/token and require its bearer token`);
  process.exit(0);
}

const number = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n)) throw new Error(`--${name} must be a number`);
  return n;
};

const requireHeaders: Record<string, string> = {};
for (const h of values.header ?? []) {
  const colon = h.indexOf(':');
  if (colon < 1) throw new Error(`--header must look like 'name: value', got '${h}'`);
  requireHeaders[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
}
const quirks: CarrierQuirks = {};
const combos = values['require-equipment-with']?.split(',').map((v) => v.trim());
if (combos) {
  for (const c of combos)
    if (c !== 'carrierBookingReference' && c !== 'transportDocumentReference')
      throw new Error(
        `--require-equipment-with takes carrierBookingReference or transportDocumentReference, got '${c}'`,
      );
  quirks.requireEquipmentWith = combos as CarrierQuirks['requireEquipmentWith'];
}
if (values['api-version']) quirks.apiVersion = values['api-version'];
if (values['paging-header']) quirks.pagingHeader = values['paging-header'];
if (values['requests-per-minute'])
  quirks.requestsPerMinute = number('requests-per-minute', values['requests-per-minute']);
if (values['rate-window-ms']) quirks.rateWindowMs = number('rate-window-ms', values['rate-window-ms']);
const id = values['oauth-client-id'];
const secret = values['oauth-client-secret'];
if ((id === undefined) !== (secret === undefined))
  throw new Error('give both --oauth-client-id and --oauth-client-secret');

const sim = await startSimulator({
  port: number('port', values.port),
  host: values.host!,
  speed: number('speed', values.speed),
  ...(values.epoch ? { epoch: values.epoch } : {}),
  ...(values['base-path'] ? { basePath: values['base-path'] } : {}),
  notFoundStatus: values['not-found-status'] === '404' ? 404 : 200,
  ...(values['not-found-reason'] ? { notFoundReason: values['not-found-reason'] } : {}),
  ...(Object.keys(quirks).length ? { quirks } : {}),
  pageLinks: values['page-links'] === 'url' ? 'url' : 'cursor',
  ...(values['flaky-hang-ms'] ? { flakyHangMs: number('flaky-hang-ms', values['flaky-hang-ms']) } : {}),
  ...(Object.keys(requireHeaders).length ? { requireHeaders } : {}),
  ...(id && secret
    ? {
        oauth: {
          clientId: id,
          clientSecret: secret,
          ...(values['oauth-expires-in']
            ? { expiresInSeconds: number('oauth-expires-in', values['oauth-expires-in']) }
            : {}),
        },
      }
    : {}),
});

console.log(
  `carrier simulator: ${sim.eventsUrl} (epoch ${sim.clock.epoch.toISOString()}, speed ${sim.clock.speed()})`,
);
console.log(`try: curl '${sim.eventsUrl}?transportDocumentReference=TEST-TR-SUCCEEDED'`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    sim.close().then(() => process.exit(0));
  });
}
