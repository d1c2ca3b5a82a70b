import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { VesselRef } from './types.ts';

export const vesselKey = (v: VesselRef): string =>
  v.imo ? `imo:${v.imo}` : `name:${(v.name ?? '').toUpperCase()}`;

/** Ids of the given vessels, creating the ones not seen before (IMO first, else by name). */
export async function ensureVessels(
  db: Kysely<DB>,
  refs: Array<VesselRef | null>,
): Promise<Map<string, string>> {
  const wanted = new Map<string, VesselRef>();
  for (const v of refs) if (v && (v.imo || v.name)) wanted.set(vesselKey(v), v);
  const ids = new Map<string, string>();
  if (wanted.size === 0) return ids;
  const lookup = async () => {
    const imos = [...wanted.values()].filter((v) => v.imo).map((v) => v.imo!);
    const names = [...wanted.values()].filter((v) => !v.imo).map((v) => (v.name ?? '').toUpperCase());
    const rows = await db
      .selectFrom('vessels')
      .select(['id', 'imo', 'name_key'])
      .where((eb) =>
        eb.or([
          ...(imos.length ? [eb('imo', 'in', imos)] : []),
          ...(names.length ? [eb('name_key', 'in', names)] : []),
        ]),
      )
      .execute();
    for (const r of rows) ids.set(r.imo ? `imo:${r.imo}` : `name:${r.name_key}`, r.id);
  };
  await lookup();
  const missing = [...wanted.entries()].filter(([k]) => !ids.has(k));
  if (missing.length === 0) return ids;
  // The new ones come back from their insert (RETURNING); a conflict returns nothing (a concurrent
  // worker inserted the same vessel), and only then is the vessel read back: one statement per
  // kind of new vessel instead of an insert and a second read.
  const withImo = missing.filter(([, v]) => v.imo);
  const byName = missing.filter(([, v]) => !v.imo);
  const took = (rows: Array<{ id: string; imo: string | null; name_key: string | null }>) => {
    for (const r of rows) ids.set(r.imo ? `imo:${r.imo}` : `name:${r.name_key}`, r.id);
  };
  if (withImo.length) {
    took(
      await db
        .insertInto('vessels')
        .values(
          withImo.map(([, v]) => ({
            id: randomUUID(),
            imo: v.imo,
            name: v.name ?? `IMO ${v.imo}`,
            name_key: null,
          })),
        )
        .onConflict((oc) => oc.column('imo').doNothing())
        .returning(['id', 'imo', 'name_key'])
        .execute(),
    );
  }
  if (byName.length) {
    took(
      await db
        .insertInto('vessels')
        .values(
          byName.map(([, v]) => ({
            id: randomUUID(),
            imo: null,
            name: v.name!,
            name_key: v.name!.toUpperCase(),
          })),
        )
        .onConflict((oc) => oc.column('name_key').doNothing())
        .returning(['id', 'imo', 'name_key'])
        .execute(),
    );
  }
  if (missing.every(([k]) => ids.has(k))) return ids;
  await lookup();
  return ids;
}
