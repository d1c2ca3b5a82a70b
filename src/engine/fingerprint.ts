import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { CarrierSnapshot, NumberType } from './snapshot.ts';

// The fingerprint of a carrier answer: what the engine's full path (normalize, diff, apply, raw
// events) would make of it is a function of the carrier snapshot (the raw records and what the
// adapter read of them), the number looked up, and the code and reference data of the engine.
// Hashing what the adapter read, not only what the carrier sent, keeps adapters out of the
// engine version: a changed parser changes the snapshot, hence the fingerprint. A shipment stores the fingerprint of the answer its state was
// last built from (shipments.engine_fingerprint); a refresh that gets the same fingerprint again
// can skip the full path, because running it would plan no change (diff of a state against the
// snapshot it was built from is empty) and the raw-event upsert would write nothing.
//
// The engine version is a digest of the files that decide the full path's result, so a deploy
// that changes the normalizer, the diff, the store mapping or the reference data (terminal ids,
// time zones) makes every stored fingerprint stale: the first refresh after it takes the full
// path again. A shipment that was never refreshed, or refreshed before migration 0006, has a
// null fingerprint and always takes the full path.

/** Bump to invalidate every stored fingerprint by hand (e.g. for a change outside VERSION_FILES). */
const MANUAL_VERSION = '1';

const VERSION_FILES: Array<{ dir: string; match: RegExp }> = [
  { dir: './', match: /\.ts$/ }, // src/engine: normalize, diff, store, lifecycle …
  { dir: '../reference/', match: /^data\.ts$/ },
  { dir: '../reference/data/', match: /./ },
  { dir: '../util/', match: /^(uuid|iso)\.ts$/ },
];

let cachedVersion: string | undefined;

/** Digest of the engine's code and reference data (computed once per process). */
export function engineVersion(): string {
  if (cachedVersion === undefined) {
    const h = createHash('sha1').update(`manual:${MANUAL_VERSION}\n`);
    for (const { dir, match } of VERSION_FILES) {
      const url = new URL(dir, import.meta.url);
      let names: string[];
      try {
        names = readdirSync(url).filter((n) => match.test(n) && !n.endsWith('.test.ts'));
      } catch {
        // Not shipped as files (bundled): only the manual version then.
        continue;
      }
      for (const name of names.sort()) {
        h.update(`${dir}${name}\n`);
        h.update(readFileSync(new URL(name, url)));
      }
    }
    cachedVersion = h.digest('base64url').slice(0, 12);
  }
  return cachedVersion;
}

/** Fingerprint of a carrier answer for a number (stored in shipments.engine_fingerprint). */
export function answerFingerprint(snapshot: CarrierSnapshot, numberType: NumberType, number: string): string {
  const h = createHash('sha1');
  h.update(`${engineVersion()}\n${numberType}\n${number}\n`);
  h.update(JSON.stringify(snapshot.records));
  return h.digest('base64url');
}
