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
  // Concurrent workers may insert the same vessel: ignore the conflict and read it back.
  const withImo = missing.filter(([, v]) => v.imo);
  const byName = missing.filter(([, v]) => !v.imo);
  if (withImo.length) {
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
      .execute();
  }
  if (byName.length) {
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
      .execute();
  }
  await lookup();
  return ids;
}
