import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { FileStorage } from './file-storage.ts';
import { createS3Storage } from './s3.ts';

// Where document files live. Files are written once under a key and never changed in place (a
// rotation writes a new key), so any process that has the key reads the same bytes.

/** A new storage key: account folder, then a random name (never the user's file name). */
export function newStorageKey(accountId: string): string {
  return `${accountId}/${randomUUID()}`;
}

const KEY_RE = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

export function createFsStorage(root: string): FileStorage {
  const base = resolve(root);
  const pathOf = (key: string) => {
    // Keys are ours, but a path is built from them: refuse anything that is not one.
    if (!KEY_RE.test(key)) throw new Error(`invalid storage key ${key}`);
    return join(base, key);
  };
  return {
    async put(key, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Write then rename: a reader never sees half a file.
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, bytes);
      await rename(tmp, path);
    },
    get: (key) => readFile(pathOf(key)),
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

export function createStorage(config: Config): FileStorage {
  const d = config.documents;
  if (d.storage === 's3') return createS3Storage(d.s3);
  return createFsStorage(d.storageDir);
}
