import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

// The load generator, in its own process so it never shares the event loop of the server it
// loads: `node bench/load/autocannon-child.ts '<json LoadSpec>'`. Runs a warm-up (discarded),
// then the measured run, and prints one JSON line with both summaries.

export interface LoadSpec {
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
  warmupS: number;
  /**
   * POST /v2/tracking_requests with a distinct number per request. The measured run then sends a
   * fixed number of requests (its rate in the warm-up times durationS) so that every response is
   * counted, including the last ones: the caller compares the 201s with the rows stored.
   */
  trackingRequests?: { scac: string; prefix: string };
  /**
   * Traffic-like reads: every request's path is `template` with `{id}` replaced by an id drawn at
   * random from `idsFile` (a JSON array; a file, as 100,000 ids do not fit in an argument).
   */
  random?: { idsFile: string; template: string };
  /** With `random`: this share of the requests (0-1) are creates like `trackingRequests`. */
  creates?: { share: number; scac: string; prefix: string };
}

export interface LoadSummary {
  requests: number;
  durationS: number;
  rps: number;
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
let seq = 0;
const ids: string[] = spec.random ? JSON.parse(readFileSync(spec.random.idsFile, 'utf8')) : [];
const randomPath = (template: string) =>
  template.replace('{id}', ids[Math.floor(Math.random() * ids.length)]!);
const trackingRequestBody = (t: { scac: string; prefix: string }) =>
  JSON.stringify({
    data: {
      type: 'tracking_request',
      attributes: {
        request_type: 'bill_of_lading',
        request_number: `${t.prefix}${(seq++).toString(36).toUpperCase()}`,
        scac: t.scac,
      },
    },
  });

function options(durationS: number, amount?: number): autocannon.Options {
  const base: autocannon.Options = {
    url: spec.url,
    connections: spec.connections,
    pipelining: 1,
    timeout: 10,
    ...(amount ? { amount } : { duration: durationS }),
  };
  if (spec.random) {
    const { template } = spec.random;
    const creates = spec.creates;
    const get = { ...spec.headers };
    const post = { ...spec.headers, 'content-type': 'application/vnd.api+json' };
    return {
      ...base,
      requests: [
        {
          method: 'GET',
          path: randomPath(template),
          headers: get,
          setupRequest: (req: any) =>
            creates && Math.random() < creates.share
              ? {
                  ...req,
                  method: 'POST',
                  path: '/v2/tracking_requests',
                  headers: post,
                  body: trackingRequestBody(creates),
                }
              : { ...req, method: 'GET', path: randomPath(template), headers: get, body: undefined },
        },
      ],
    };
  }
  if (!spec.trackingRequests) {
    // The whole URL: autocannon's top-level `path` option is not applied to plain requests.
    return {
      ...base,
      url: `${spec.url}${spec.path}`,
      method: spec.method ?? 'GET',
      headers: spec.headers ?? {},
    };
  }
  const t = spec.trackingRequests;
  return {
    ...base,
    requests: [
      {
        method: 'POST',
        path: spec.path,
        headers: { ...spec.headers, 'content-type': 'application/vnd.api+json' },
        setupRequest: (req: any) => ({ ...req, body: trackingRequestBody(t) }),
      },
    ],
  };
}

function summarize(r: autocannon.Result): LoadSummary {
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = v.count;
  const completed = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const durationS = r.duration;
  return {
    requests: completed,
    durationS,
    rps: completed / durationS,
    latency: {
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
      mean: r.latency.mean,
    },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodes,
  };
}

// Creating requests warm up with a fixed count too, so that every 201 is counted.
const warmupAmount = spec.trackingRequests ? spec.connections * 40 : undefined;
const warmup = spec.warmupS > 0 ? summarize(await autocannon(options(spec.warmupS, warmupAmount))) : null;
const amount = spec.trackingRequests
  ? Math.max(spec.connections, Math.round((warmup?.rps ?? 100) * spec.durationS))
  : undefined;
const measured = summarize(await autocannon(options(spec.durationS, amount)));
process.stdout.write(`${JSON.stringify({ warmup, measured })}\n`);
