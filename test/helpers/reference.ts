import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The published documents tests check our output against. Those whose licence lets the repository
// carry them are in test/fixtures/reference/ (sources in its README.md and in NOTICE). The reference
// service's OpenAPI document states no licence, so it stays outside: it is read from the team's
// shared directory beside the checkout (or REFERENCE_DIR), and where it is absent the tests that
// need it skip and say which file they looked for, so a fresh clone passes and shows what it missed.

/** A reference document shipped with the repository. */
export const bundledReference = (name: string): URL =>
  new URL(`../fixtures/reference/${name}`, import.meta.url);

const OUTSIDE = process.env.REFERENCE_DIR
  ? pathToFileURL(`${resolve(process.env.REFERENCE_DIR)}/`)
  : new URL('../../../shared/reference/', import.meta.url);

export interface OutsideReference {
  url: URL;
  /** node:test's `skip` option: false when the file is there, else why the test did not run. */
  skip: string | false;
}

/** A reference document kept outside the repository, and the reason to skip where it is absent. */
export function outsideReference(name: string): OutsideReference {
  const url = new URL(name, OUTSIDE);
  const skip = existsSync(url)
    ? false
    : `${fileURLToPath(url)} is absent (not in the repository: its licence is not stated; set REFERENCE_DIR to the directory holding ${name}, see test/fixtures/reference/README.md)`;
  return { url, skip };
}

/** The reference service's published OpenAPI document. */
export const REFERENCE_OPENAPI = outsideReference('openapi.json');
