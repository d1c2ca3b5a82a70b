import { type Expression, type SqlBool, sql } from 'kysely';
import { badParameter } from '../errors.ts';
import { isUuid } from '../util/uuid.ts';

/** `filter[customer_id]` on the shipment list: the shipments of one party (alias `s`). */
export function customerConditions(qs: Record<string, string | undefined>): Array<Expression<SqlBool>> {
  const id = qs['filter[customer_id]'];
  if (id === undefined) return [];
  if (!isUuid(id))
    throw badParameter('filter[customer_id]', 'filter[customer_id] must be a party id (a UUID).');
  return [sql<SqlBool>`s.customer_id = ${id}`];
}
