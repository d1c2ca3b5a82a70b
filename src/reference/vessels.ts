import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

// Vessel lookups: shared public facts in the `vessels` table, no account. Reference data is a lower
// layer than the tracking read models, which include vessels through these queries.

/** A vessel as stored: public facts shared by every account. */
export interface Vessel {
  id: string;
  imo: string | null;
  name: string;
}

export async function vesselsByIds(db: Kysely<DB>, ids: Array<string | null>): Promise<Vessel[]> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return [];
  return db.selectFrom('vessels').select(['id', 'imo', 'name']).where('id', 'in', wanted).execute();
}

/** Vessels by IMO, and by upper-cased name for vessels stored without one. */
export async function vesselsByImoOrName(
  db: Kysely<DB>,
  imos: string[],
  names: string[],
): Promise<Array<Vessel & { name_key: string | null }>> {
  const i = [...new Set(imos)];
  const n = [...new Set(names.map((x) => x.toUpperCase()))];
  if (i.length === 0 && n.length === 0) return [];
  return db
    .selectFrom('vessels')
    .select(['id', 'imo', 'name', 'name_key'])
    .where((eb) =>
      eb.or([...(i.length ? [eb('imo', 'in', i)] : []), ...(n.length ? [eb('name_key', 'in', n)] : [])]),
    )
    .execute();
}

export async function findVessel(
  db: Kysely<DB>,
  by: { id: string } | { imo: string },
): Promise<Vessel | undefined> {
  const q = db.selectFrom('vessels').select(['id', 'imo', 'name']);
  return 'id' in by
    ? q.where('id', '=', by.id).executeTakeFirst()
    : q.where('imo', '=', by.imo).executeTakeFirst();
}
