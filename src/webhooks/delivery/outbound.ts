import type { Config } from '../../config.ts';
import { type AddressPolicy, createAddressPolicy, type Resolver } from './address-guard.ts';

// The one outbound address policy of a process, built from config.webhooks: URL checks at
// configuration time and the guarded dispatcher every delivery (and test trigger) goes through.
// One per Config object, so the API and an in-process worker share its connection pool, while tests
// that build several apps with different settings each get their own.

const policies = new WeakMap<Config, AddressPolicy>();

function build(config: Config, resolve?: Resolver): AddressPolicy {
  const policy = createAddressPolicy({
    allowHttp: config.webhooks.allowHttp,
    allowlist: config.webhooks.allowlist,
    connectTimeoutMs: config.webhooks.connectTimeoutMs,
    // Several webhooks can share one origin (same host, other paths): per-webhook concurrency is
    // bounded by the delivery loop, so the pool must not make one webhook wait for another's slots.
    maxConnectionsPerOrigin: config.webhooks.concurrency,
    ...(resolve ? { resolve } : {}),
  });
  policies.set(config, policy);
  return policy;
}

export function getAddressPolicy(config: Config): AddressPolicy {
  return policies.get(config) ?? build(config);
}

/** Tests: the policy for `config` resolves names with `resolve` (names no hosts file here provides). */
export function setAddressResolver(config: Config, resolve: Resolver): void {
  build(config, resolve);
}
