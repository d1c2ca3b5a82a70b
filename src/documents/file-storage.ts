// The interface every document file store implements (storage.ts picks one from the
// configuration; s3.ts and the file-system store implement it). Its own module, so that the
// stores and the picker do not import each other.

export interface FileStorage {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
}
