import type { FastifyReply } from 'fastify';

// Documents assembled as JSON text (src/shipments/sql-documents/) go out as they are: a string
// or Buffer payload skips the response schema's serializer. The content type is the one Fastify
// gives the objects it serialises, so clients and the response cache see no difference.

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends `body` (a complete JSON document) as the 200 answer. */
export function sendJsonText(reply: unknown, body: string | Buffer): FastifyReply {
  return (reply as FastifyReply).type(JSON_TYPE).send(body);
}
