// Builds the SCAC -> adapter map from validated config entries: the one place adapters are
// listed (ADAPTERS, keyed by the config's `adapter` name, so a name without a factory does not
// compile). Each connection gets its own request budget, shared by its token requests and API
// requests. The sandbox SCAC TEST is always there unless the config defines TEST itself (e.g. to
// point it at the HTTP simulator).

import { PROTOCOL_DEFAULTS } from '../config/carrier-protocol.ts';
import type { AdapterName, CarrierConfigEntry } from '../config/carriers.ts';
import { createAuth } from './auth.ts';
import { createDcsaAdapter } from './dcsa/adapter.ts';
import { createDcsaClient } from './dcsa/client.ts';
import { createDcsaV3Adapter } from './dcsa-v3/adapter.ts';
import { createDcsaV3Client } from './dcsa-v3/client.ts';
import { createRateBudget } from './rate-budget.ts';
import { createSandboxAdapter } from './sandbox.ts';
import type { CarrierAdapter } from './types.ts';

export interface RegistryOptions {
  /** Clock for the sandbox adapter. */
  clock?: () => Date;
  /** Longest wait for request budget or a short Retry-After within one lookup (default 5 s). */
  maxWaitMs?: number;
  /** Default per-request time-out when an entry has no timeout_ms (default 20 s). */
  defaultTimeoutMs?: number;
}

interface Connection {
  scac: string;
  entry: CarrierConfigEntry;
  timeoutMs: number;
  options: RegistryOptions;
}

/** What every DCSA client of a connection is made with: its budget, auth and protocol. */
function http({ entry, timeoutMs, options }: Connection) {
  const budget = createRateBudget({
    requestsPerMinute: entry.requests_per_minute,
    maxWaitMs: options.maxWaitMs,
  });
  const auth = createAuth(entry.auth, { budget, timeoutMs });
  const protocol = entry.protocol ?? PROTOCOL_DEFAULTS[entry.adapter];
  return { baseUrl: entry.base_url, auth, budget, timeoutMs, maxRetryWaitMs: options.maxWaitMs, protocol };
}

const ADAPTERS: Record<AdapterName, (c: Connection) => CarrierAdapter> = {
  'dcsa-tnt-v2': (c) => {
    const options = http(c);
    return createDcsaAdapter({
      scac: c.scac,
      numberTypes: c.entry.number_types,
      client: createDcsaClient(options),
      requiresEquipment: options.protocol.requires_equipment,
    });
  },
  'dcsa-tnt-v3': (c) => {
    const options = http(c);
    return createDcsaV3Adapter({
      scac: c.scac,
      numberTypes: c.entry.number_types,
      client: createDcsaV3Client(options),
      updatedSince: options.protocol.updated_since,
      fullReadIntervalMs: options.protocol.full_read_interval_ms,
      requiresEquipment: options.protocol.requires_equipment,
    });
  },
};

export function buildCarrierRegistry(
  entries: readonly CarrierConfigEntry[],
  options: RegistryOptions = {},
): Map<string, CarrierAdapter> {
  const registry = new Map<string, CarrierAdapter>();
  for (const entry of entries) {
    const scac = entry.scac.toUpperCase();
    const timeoutMs = entry.timeout_ms ?? options.defaultTimeoutMs ?? 20_000;
    registry.set(scac, ADAPTERS[entry.adapter]({ scac, entry, timeoutMs, options }));
  }
  if (!registry.has('TEST')) registry.set('TEST', createSandboxAdapter({ clock: options.clock }));
  return registry;
}
