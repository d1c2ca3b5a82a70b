import type { FastifyReply } from 'fastify';

// Documents assembled as JSON text (src/shipments/sql-bodies/) go out as they are: a string
// or Buffer payload skips the response schema's serializer. The content type is the one Fastify
// gives the objects it serialises, so clients and the response cache see no difference.

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers this large are given back to the allocator as soon as they are sent. A Buffer's memory
 * is otherwise freed only when the garbage collector finds its object dead, and the object of an
 * answer still being written when a young-generation collection runs (a page of shipments with
 * containers, ~440 KB, at 50 connections) is promoted and waits for a major collection: under list
 * pages that kept ~15 MB more of sent answers in the process's RSS (docs/benchmarks.md).
 */
const RELEASE_FROM = 64 * 1024;

/** Sends `body` (a complete JSON document) as the 200 answer. */
export function sendJsonText(reply: unknown, body: string | Buffer): FastifyReply {
  const r = reply as FastifyReply;
  if (Buffer.isBuffer(body)) releaseWhenSent(r, body);
  return r.type(JSON_TYPE).send(body);
}

/**
 * Frees `body`'s memory once its response has finished (the socket has handed every byte to the
 * kernel by then; the response cache keeps its own copy, as text). Only a Buffer that is the whole
 * of its memory: never a slice of Node's shared pool.
 */
function releaseWhenSent(reply: FastifyReply, body: Buffer): void {
  const memory = body.buffer;
  if (!(memory instanceof ArrayBuffer) || body.length < RELEASE_FROM || body.byteLength !== memory.byteLength)
    return;
  reply.raw.once('finish', () => {
    memory.transfer(0);
  });
}
