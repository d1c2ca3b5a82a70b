import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ApiError, notFound } from '../errors.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import {
  findParty,
  insertParty,
  isUniqueViolation,
  listParties,
  type Party,
  renameParty,
} from './queries.ts';

// Parties: an account's customers, named by company_name (unique per account, ignoring case).

const NAME_POINTER = '/data/attributes/company_name';

function cleanName(raw: string | undefined): string {
  const name = (raw ?? '').trim();
  if (name === '') {
    throw new ApiError(422, [
      { source: { pointer: NAME_POINTER }, detail: "Company name can't be blank", code: 'blank' },
    ]);
  }
  return name;
}

function duplicate(name: string): ApiError {
  return new ApiError(422, [
    { source: { pointer: NAME_POINTER }, detail: `'${name}' already exists in Account`, code: 'taken' },
  ]);
}

export async function createParty(
  db: Kysely<DB>,
  accountId: string,
  input: { company_name?: string },
): Promise<Party> {
  const name = cleanName(input.company_name);
  try {
    return await insertParty(db, accountId, name);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(name);
    throw err;
  }
}

export async function getParty(db: Kysely<DB>, accountId: string, id: string): Promise<Party> {
  const row = isUuid(id) ? await findParty(db, accountId, id) : undefined;
  if (!row) throw notFound('No party with this id.');
  return row;
}

export async function editParty(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  input: { company_name?: string },
): Promise<Party> {
  if (input.company_name === undefined) return getParty(db, accountId, id);
  const name = cleanName(input.company_name);
  if (!isUuid(id)) throw notFound('No party with this id.');
  let row: Party | undefined;
  try {
    row = await renameParty(db, accountId, id, name);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(name);
    throw err;
  }
  if (!row) throw notFound('No party with this id.');
  return row;
}

export function pageOfParties(db: Kysely<DB>, accountId: string, page: Page) {
  return listParties(db, accountId, page);
}

/**
 * The party a tracking request names in `relationships.customer`: it must be one of the
 * account's parties (a 422 pointing at the relationship otherwise).
 */
export async function customerOf(
  db: Kysely<DB>,
  accountId: string,
  relationships: { customer?: { data?: { id?: string; type?: string } | null } } | undefined,
): Promise<string | null> {
  const ref = relationships?.customer?.data;
  if (!ref) return null;
  const row = ref.id && isUuid(ref.id) ? await findParty(db, accountId, ref.id) : undefined;
  if (!row || (ref.type !== undefined && ref.type !== 'party')) {
    throw new ApiError(422, [
      {
        source: { pointer: '/data/relationships/customer/data' },
        detail: `No party with id '${ref.id ?? ''}' in this account.`,
        code: 'unknown_reference',
      },
    ]);
  }
  return row.id;
}
