// `npm run cli -- carriers check [SCAC] [--number N --type T]`: whether each configured carrier
// connection works before a number is tracked through it. The entry itself was checked when the
// configuration loaded (a bad entry stops the command there, naming the entry and field); here,
// per carrier: a token when the entry needs one, the endpoint reached with a probe look-up (an
// answer, even "not found", proves URL and credentials), and with --number one real look-up.
// Only outcomes and the adapters' failure details are printed: they never carry secrets.

import { createAuth } from '../carriers/auth.ts';
import { buildCarrierRegistry } from '../carriers/registry.ts';
import type { LookupResult, NumberType } from '../carriers/types.ts';
import type { CarrierConfigEntry } from '../config/carriers.ts';

export interface CheckOptions {
  scac?: string;
  number?: string;
  type?: NumberType;
  /** Container numbers asked with the number, for carriers that want both (requires_equipment). */
  containers?: string[];
}

// Numbers no carrier has: the probe only needs an answer. The container passes ISO 6346.
const PROBE: Record<NumberType, string> = {
  bill_of_lading: 'TRACKERCHECK0',
  booking_number: 'TRACKERCHECK0',
  container: 'MSKU7000013',
};

const said = (r: LookupResult): { ok: boolean; text: string } => {
  if (r.kind === 'found') return { ok: true, text: `found (${r.snapshot.records.length} events)` };
  if (r.kind === 'not_found') return { ok: true, text: 'not found' };
  return { ok: false, text: `${r.reason}: ${r.detail}` };
};

/** Runs the checks and writes the table; resolves to the exit status (1 when any check fails). */
export async function carriersCheck(
  entries: readonly CarrierConfigEntry[],
  options: CheckOptions,
  write: (line: string) => void,
): Promise<number> {
  const chosen = entries.filter((e) => !options.scac || e.scac === options.scac.toUpperCase());
  if (chosen.length === 0) {
    write(
      options.scac
        ? `No carrier ${options.scac.toUpperCase()} in CARRIERS_CONFIG.`
        : 'CARRIERS_CONFIG lists no carriers.',
    );
    return 1;
  }
  const registry = buildCarrierRegistry(chosen, { maxWaitMs: 2000 });
  const rows: string[][] = [['SCAC', 'ADAPTER', 'TOKEN', 'ENDPOINT', 'LOOKUP', 'RESULT']];
  let failed = false;
  for (const entry of chosen) {
    const row = [entry.scac, entry.adapter, '-', '-', '-', 'ok'];
    const fail = (why: string) => {
      row[5] = `FAIL ${why}`;
      failed = true;
    };
    if (entry.auth.type !== 'headers') {
      const token = await createAuth(entry.auth, { timeoutMs: entry.timeout_ms ?? 10_000 }).headers();
      row[2] = token.ok ? 'ok' : 'failed';
      if (!token.ok) {
        fail(token.detail);
        rows.push(row);
        continue;
      }
    }
    const adapter = registry.get(entry.scac)!;
    const probeType = entry.number_types[0]!;
    // A carrier that wants a container with a booking gets the probe container with it.
    const probe = said(
      await adapter.lookup(probeType, PROBE[probeType], undefined, { references: [PROBE.container] }),
    );
    row[3] = probe.ok ? 'reached' : 'failed';
    if (!probe.ok) fail(probe.text);
    else if (options.number) {
      const type = options.type ?? probeType;
      const r = said(
        await adapter.lookup(type, options.number, undefined, { references: options.containers ?? [] }),
      );
      row[4] = `${type} ${options.number}: ${r.text}`;
      if (!r.ok) fail(r.text);
    }
    rows.push(row);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  return failed ? 1 : 0;
}
