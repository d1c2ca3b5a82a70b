import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadSpec, LoadSummary } from '../load/autocannon-child.ts';

// The traffic set's load generator (issue 15 states its targets with wrk: 50 connections, 2
// threads): wrk, a C program, in its own process. A generated Lua script draws a random id per
// request from the ids file and, for mixed loads, turns a share of the requests into tracking
// request creates with distinct numbers (per thread and sequence). wrk reports latency
// percentiles from its own histogram; its `errors.status` counts answers outside 2xx/3xx. Debian
// package `wrk`; a missing wrk fails the traffic set with that message.

const THREADS = 2;

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal here

function script(spec: LoadSpec, idsTxt: string | null, run: string): string {
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`)
    .join('\n');
  const c = spec.creates;
  return `
local ids = {}
${idsTxt ? `for line in io.lines(${lua(idsTxt)}) do ids[#ids + 1] = line end` : ''}
${headers}
-- wrk.format's headers replace wrk.headers: the creates' carry the same, plus their type.
local post = { ["Content-Type"] = "application/vnd.api+json" }
for k, v in pairs(wrk.headers) do post[k] = v end
local counter = 1
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
local seq = 0
function init(args)
  math.randomseed(os.time() * 1000 + tid)
end
local template = ${lua(spec.random?.template ?? spec.path)}
local function path()
  if #ids == 0 then return template end
  return (template:gsub("{id}", ids[math.random(#ids)]))
end
request = function()
  ${
    c
      ? `if math.random() < ${c.share} then
    seq = seq + 1
    local body = '{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"${c.prefix}${run}' .. tid .. 'T' .. seq .. '","scac":"${c.scac}"}}}'
    return wrk.format("POST", "/v2/tracking_requests", post, body)
  end`
      : ''
  }
  return wrk.format("GET", path())
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%f,"p90":%f,"p99":%f,"max":%f,"mean":%f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`;
}

async function wrk(
  spec: LoadSpec,
  durationS: number,
  idsTxt: string | null,
  run: string,
): Promise<LoadSummary> {
  const scriptFile = join(tmpdir(), `tracker-wrk-${process.pid}-${run}.lua`);
  writeFileSync(scriptFile, script(spec, idsTxt, run));
  const args = [
    `-t${THREADS}`,
    `-c${spec.connections}`,
    `-d${durationS}s`,
    '--timeout',
    '10s',
    '-s',
    scriptFile,
    spec.url,
  ];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', (err) =>
      reject(new Error(`wrk could not start (${err.message}): install Debian's wrk package`)),
    );
    child.on('exit', (c) => resolve(c ?? 1));
  });
  const line = out
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out.slice(-2000)}`);
  const r = JSON.parse(line) as Record<string, number>;
  const ms = (us: number) => Math.round(us / 10) / 100;
  const durS = r.durationUs! / 1e6;
  const errors = r.connect! + r.read! + r.write!;
  return {
    requests: r.requests!,
    durationS: durS,
    rps: r.requests! / durS,
    latency: { p50: ms(r.p50!), p90: ms(r.p90!), p99: ms(r.p99!), max: ms(r.max!), mean: ms(r.mean!) },
    errors,
    timeouts: r.timeout!,
    non2xx: r.status!,
    statusCodes: {},
  };
}

/** A warm-up (discarded) and the measured run of `spec` with wrk (2 threads). */
export async function runWrk(spec: LoadSpec): Promise<{ measured: LoadSummary; warmup: LoadSummary | null }> {
  let idsTxt: string | null = null;
  if (spec.random) {
    idsTxt = join(tmpdir(), `tracker-wrk-ids-${process.pid}-${Date.now()}.txt`);
    writeFileSync(idsTxt, (JSON.parse(readFileSync(spec.random.idsFile, 'utf8')) as string[]).join('\n'));
  }
  // Each run's creates carry a tag of their own: numbers never repeat across runs.
  const warmup = spec.warmupS > 0 ? await wrk(spec, spec.warmupS, idsTxt, 'W') : null;
  const measured = await wrk(spec, spec.durationS, idsTxt, 'M');
  if (idsTxt) rmSync(idsTxt, { force: true });
  return { measured, warmup };
}
