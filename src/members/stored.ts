import { type Members, membersOf, SPLICE, sqlOf } from './json-text.ts';
import { type Declaration, membersJson, resourceJson, runColumn, storedRuns } from './kit.ts';

// The parts of a resource that depend on nothing but their own row, written as JSON text into the
// row itself by a BEFORE INSERT OR UPDATE trigger, so that a read concatenates stored text instead
// of formatting ~30 timestamps per container again on every request (to_char is about 1 µs each).
// Which members are stored is said by their declaration (kit.ts `stored`): the maximal runs of
// stored attributes become the columns attributes_json_1, _2, …; a resource stored whole (a
// transport event, a vessel) keeps its `data` form in resource_json. What depends on other rows
// and the engine's bookkeeping (which moves at every refresh) is written at each read. The
// triggers fire only on updates that set a column their pieces read.
//
// The trigger functions in the database must be the ones `renderFunction()` writes:
// test/api/stored-json.test.ts compares them, and `npm run migration:stored-json` writes the
// migration that brings them up to date.

/** A stored piece: the column that holds it and the members it renders (`t` is the row's alias). */
export interface Piece {
  column: string;
  members: (t: string) => Members;
}

export interface StoredTable {
  table: string;
  fn: string;
  pieces: Piece[];
}

/** The stored pieces of a declared resource and the function that renders them. */
export function storedTableOf(d: Declaration<never, never>): StoredTable {
  if (!d.stored) throw new Error(`${d.type}: nothing stored`);
  const pieces: Piece[] =
    d.stored === 'whole'
      ? [{ column: 'resource_json', members: (t) => [[SPLICE, resourceJson(d, 'data', t, false)]] }]
      : storedRuns(d).map((run, i) => ({
          column: runColumn(i),
          members: (t) => membersJson(run, t, 'data'),
        }));
  return { table: d.table, fn: `render_${d.type}_json`, pieces };
}

/** The columns a table's pieces read (the trigger fires on updates that set one of them). */
export function columnsRead(t: StoredTable): string[] {
  const cols = new Set<string>();
  for (const p of t.pieces)
    for (const m of sqlOf(membersOf(p.members('new'))).matchAll(/\bnew\.("?)(\w+)\1/g)) cols.add(m[2]!);
  return [...cols].sort();
}

/** The trigger function that renders a table's pieces into NEW (plpgsql, as migrations hold it). */
export function renderFunction(t: StoredTable): string {
  const assigns = t.pieces
    .map((p) => `  new.${p.column} := ${sqlOf(membersOf(p.members('new')))};`)
    .join('\n');
  return `create or replace function ${t.fn}() returns trigger language plpgsql as $$\nbegin\n${assigns}\n  return new;\nend $$;`;
}
