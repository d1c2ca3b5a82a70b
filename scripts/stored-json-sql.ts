import { columnsRead, renderFunction, STORED_TABLES } from '../src/shipments/sql-documents/stored.ts';

// Prints the SQL that installs the stored JSON pieces of src/shipments/sql-documents/stored.ts:
// the trigger functions, the triggers, and an update that renders every existing row. A change to
// stored.ts goes into a new migration made from this output (test/api/stored-json.test.ts fails
// until the database's functions are the ones stored.ts writes). `--columns` adds the columns too
// (the first time only: migrations/0043). Table names after the flags choose tables (all by
// default).

const withColumns = process.argv.includes('--columns');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const out: string[] = [];
for (const t of STORED_TABLES.filter((x) => only.length === 0 || only.includes(x.table))) {
  if (withColumns)
    out.push(`alter table ${t.table} ${t.pieces.map((p) => `add column ${p.column} text`).join(', ')};`);
  out.push(renderFunction(t));
  const cols = columnsRead(t).map((c) => (c === 'timestamp' ? '"timestamp"' : c));
  out.push(`drop trigger if exists ${t.table}_render_json on ${t.table};`);
  out.push(
    `create trigger ${t.table}_render_json before insert or update of ${cols.join(', ')} on ${t.table}\n  for each row execute function ${t.fn}();`,
  );
  out.push(`update ${t.table} set ${cols[0]} = ${cols[0]};`);
  out.push('');
}
process.stdout.write(`${out.join('\n')}\n`);
