import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../util/uuid.ts';
import { allTerminals, type Port, portById, portByLocode, type Terminal, terminalById } from './data.ts';
import { findVessel, type Vessel } from './vessels.ts';

// Reference data use cases: ports, metro areas and terminals (shipped data, in memory) and vessels
// (shared facts in the database). The same for every account, so no account filter; routes still
// authenticate. A key that names nothing is a 404 from the catalogue.

/** A port by id or UN/LOCODE (case-insensitive, inner spaces ignored: "NL RTM"). */
export function findPort(idOrLocode: string): Port | undefined {
  if (isUuid(idOrLocode)) return portById(idOrLocode.toLowerCase());
  const locode = idOrLocode.replace(/\s+/g, '').toUpperCase();
  return /^[A-Z]{2}[A-Z0-9]{3}$/.test(locode) ? portByLocode(locode) : undefined;
}

/**
 * A terminal by id, or by `LOCODE:CODE` where CODE is the SMDG code or the FIRMS code
 * (case-insensitive): `NLRTM:DDE`, `USLAX:Y258`.
 */
export function findTerminal(key: string): Terminal | undefined {
  if (isUuid(key)) return terminalById(key.toLowerCase());
  const m = /^([A-Za-z]{2}[A-Za-z0-9]{3}):(.+)$/.exec(key.trim());
  if (!m) return undefined;
  const locode = m[1]!.toUpperCase();
  const code = m[2]!.trim().toUpperCase();
  const atPort = allTerminals().filter((t) => t.port_locode === locode);
  return (
    atPort.find((t) => t.smdg_code?.toUpperCase() === code) ??
    atPort.find((t) => t.firms_code?.toUpperCase() === code)
  );
}

export function getPort(idOrLocode: string): Port {
  const port = findPort(idOrLocode);
  if (!port) throw notFound('No port with this id or UN/LOCODE.');
  return port;
}

/** Metro areas are the UN/LOCODE places of the port list, under the same ids. */
export function getMetroArea(idOrLocode: string): Port {
  const port = findPort(idOrLocode);
  if (!port) throw notFound('No metro area with this id or UN/LOCODE.');
  return port;
}

export function getTerminal(key: string): Terminal {
  const terminal = findTerminal(key);
  if (!terminal) throw notFound('No terminal with this id or LOCODE:CODE.');
  return terminal;
}

/** A vessel by id (UUID) or IMO number (7 digits, optionally prefixed "IMO"). */
export async function getVessel(db: Kysely<DB>, idOrImo: string): Promise<Vessel> {
  const raw = idOrImo.trim();
  const imo = /^(?:IMO)?\s*(\d{7})$/i.exec(raw)?.[1];
  const vessel = isUuid(raw)
    ? await findVessel(db, { id: raw.toLowerCase() })
    : imo
      ? await findVessel(db, { imo })
      : undefined;
  if (!vessel) throw notFound('No vessel with this id or IMO number.');
  return vessel;
}
