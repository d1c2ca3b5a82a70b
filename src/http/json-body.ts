import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, catalogueError } from '../errors.ts';
import { jsonSyntaxDetail } from './json-syntax.ts';
import { LIMITS } from './limits.ts';

// The JSON body parser for application/json and application/vnd.api+json. Before the usual
// (prototype-poisoning-safe) parse it refuses what the default parser would let through:
// invalid UTF-8, which Node's decoder would silently replace with U+FFFD, and nesting deeper
// than LIMITS.jsonDepth, which costs stack and time in every later walk.

const decoder = new TextDecoder('utf-8', { fatal: true });

const tooDeep = (pointer: string) =>
  new ApiError(400, [
    {
      source: { pointer },
      detail: `The JSON body is nested more than ${LIMITS.jsonDepth} levels deep.`,
      code: 'too_deep',
    },
  ]);

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

interface Frame {
  object: boolean;
  /** Array: index of the current element. Object: name of the current member. */
  at: number | string;
  /** Object only: the next string is a member name. */
  expectKey: boolean;
}

/**
 * The JSON pointer of the first array or object nested deeper than `maxDepth`, or null. A linear
 * scan that only follows brackets, strings and separators; syntax errors are left to JSON.parse.
 */
export function findTooDeep(text: string, maxDepth: number = LIMITS.jsonDepth): string | null {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
      const top = stack[stack.length - 1];
      if (top?.object && top.expectKey) {
        try {
          top.at = JSON.parse(text.slice(start, i + 1)) as string;
        } catch {
          top.at = text.slice(start + 1, i);
        }
        top.expectKey = false;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (stack.length >= maxDepth) {
        return stack.map((f) => `/${typeof f.at === 'number' ? f.at : escapePointer(f.at)}`).join('');
      }
      stack.push({ object: c === 0x7b, at: c === 0x7b ? '' : 0, expectKey: c === 0x7b });
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.object) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    }
  }
  return null;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/json', 'application/vnd.api+json'],
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: Buffer | string, done) => {
      let text: string;
      try {
        text = typeof body === 'string' ? body : decoder.decode(body);
      } catch {
        done(
          new ApiError(400, [
            {
              source: { pointer: '' },
              detail: 'The request body is not valid UTF-8.',
              code: 'invalid_utf8',
            },
          ]),
          undefined,
        );
        return;
      }
      const deep = findTooDeep(text);
      if (deep !== null) {
        done(tooDeep(deep), undefined);
        return;
      }
      parseJson(request, text, (err, value) => {
        const code = (err as { code?: string } | null)?.code;
        if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
          done(
            catalogueError('malformed_json', jsonSyntaxDetail(text), { source: { pointer: '' } }),
            undefined,
          );
        } else done(err, value);
      });
    },
  );
}
