import { readdirSync, readFileSync } from 'node:fs';

// The recorded answers of the live reference service (test/fixtures/live-responses/, NOTICE), each
// the official CLI's envelope: `ok`, `command`, and `data` as the CLI printed it.

const DIR = new URL('../fixtures/live-responses/', import.meta.url);

export interface LiveAnswer {
  file: string;
  ok: boolean;
  command: string;
  data: unknown;
}

/** Every recorded answer, by file name order. */
export function liveAnswers(): LiveAnswer[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) }));
}
