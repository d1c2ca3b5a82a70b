import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Resource } from '../jsonapi/resource.ts';
import { optionsOf } from './definition-queries.ts';
import { serializeValue } from './serializer.ts';
import type { DataType, ResourceType } from './types.ts';
import { displayValue } from './value-check.ts';
import { VALUE_COLUMNS } from './value-queries.ts';

// Custom field values as `included` resources of webhook payloads: one query per rendered batch.

/** The custom_field resources of the given entities, by entity id. */
export async function customFieldResources(
  db: Kysely<DB>,
  entityIds: Array<string | null | undefined>,
): Promise<Map<string, Resource[]>> {
  const out = new Map<string, Resource[]>();
  const ids = [...new Set(entityIds.filter((x): x is string => !!x))];
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('custom_field_values as v')
    .innerJoin('custom_field_definitions as d', 'd.id', 'v.definition_id')
    .select([...VALUE_COLUMNS, 'v.account_id'])
    .where(sql<boolean>`v.entity_id = any(${ids}::uuid[])`)
    .orderBy('v.created_at')
    .orderBy('v.id')
    .execute();
  const byAccount = new Map<string, string[]>();
  for (const r of rows)
    byAccount.set(r.account_id, [...(byAccount.get(r.account_id) ?? []), r.definition_id]);
  const options = (
    await Promise.all([...byAccount].map(([account, defIds]) => optionsOf(db, account, defIds)))
  ).flat();
  for (const r of rows) {
    const dataType = r.data_type as DataType;
    const resource = serializeValue({
      ...r,
      data_type: dataType,
      entity_type: r.entity_type as ResourceType,
      display_value: displayValue(
        dataType,
        r.value,
        options.filter((o) => o.definition_id === r.definition_id),
      ),
    });
    out.set(r.entity_id, [...(out.get(r.entity_id) ?? []), resource]);
  }
  return out;
}
