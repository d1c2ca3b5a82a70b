import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type pg from 'pg';

/** A named statement: its name and SQL text. */
export interface Statement {
  name: string;
  text: string;
}

// Which statements PostgreSQL keeps prepared. A named statement is parsed and planned once per
// connection and then only executed: worth it for the hot ones (the read path's SQL bodies,
// src/shipments/sql-bodies/ and src/tracking-requests/sql-body.ts, and the worker's claims), each
// kept by every connection for its life. Every other query goes unnamed (parsed at each run, kept
// by nobody). The hot statements have variants (sort, includes, page size written into the text:
// over a thousand in all), so the names given are bounded too: the first NAMED_STATEMENTS_MAX a
// process runs get names, any later one runs unnamed. `DATABASE_PREPARED_STATEMENTS=off` names
// none, for a pooler in transaction mode (PgBouncer), which sends each transaction to whichever
// server connection is free, where a name prepared on another one does not exist.

export type PreparedStatements = 'auto' | 'off';

/** Distinct statements a process prepares at most (so each connection keeps at most that many). */
export const NAMED_STATEMENTS_MAX = 100;

/** The statements given names so far, up to `max`. */
export class StatementNames {
  readonly #names = new Set<string>();
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  /** The name to prepare `statement` under; undefined: run it unnamed. */
  nameOf(statement: Statement): string | undefined {
    if (this.#names.has(statement.name)) return statement.name;
    if (this.#names.size >= this.max) return undefined;
    this.#names.add(statement.name);
    return statement.name;
  }

  get size(): number {
    return this.#names.size;
  }
}

export function statementNames(mode: PreparedStatements): StatementNames {
  return new StatementNames(mode === 'off' ? 0 : NAMED_STATEMENTS_MAX);
}

const MARK = '/* statement ';

/**
 * Marks a query built with Kysely as hot: `sql`${hot('claim_due_requests')} update …``. Its text
 * starts with a comment naming it, and the driver (preparing, below) sends it as a named statement.
 */
export function hot(name: string): RawBuilder<unknown> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`statement name ${name}`);
  return sql.raw(`${MARK}${name} */ `);
}

/** The statement of a hot query's text (named by its mark and its text), or undefined. */
function hotStatement(text: string, known: Map<string, Statement>): Statement | undefined {
  if (!text.startsWith(MARK)) return undefined;
  let st = known.get(text);
  if (!st) {
    const mark = text.slice(MARK.length, text.indexOf(' */'));
    st = { name: `${mark}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`, text };
    // Texts beyond the bound are never named: no need to remember them.
    if (known.size < NAMED_STATEMENTS_MAX) known.set(text, st);
  }
  return st;
}

/**
 * `pool` whose clients send the hot queries Kysely builds (marked with `hot`) as named statements,
 * as `names` allows; everything else goes unnamed, as pg sends it.
 */
export function preparing(pool: pg.Pool, names: StatementNames): pg.Pool {
  const known = new Map<string, Statement>();
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver);
        return (text: unknown, values?: unknown[]) => {
          const st = typeof text === 'string' ? hotStatement(text, known) : undefined;
          const name = st && names.nameOf(st);
          return name ? query({ name, text, values }) : query(text, values);
        };
      },
    });
  };
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'connect') return async () => wrap(await target.connect());
      return Reflect.get(target, prop, receiver);
    },
  });
}
