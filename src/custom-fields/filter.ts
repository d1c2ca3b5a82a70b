import { type Expression, type SqlBool, sql } from 'kysely';
import { badParameter } from '../errors.ts';

// `filter[custom_fields][<api_slug>]=<value>` on the shipment and container lists: entities whose
// value of that field equals the given text (a number or boolean by its JSON text; an enum_multi
// value when it contains it). Several such filters all apply.

const PARAM_RE = /^filter\[custom_fields\]\[([^\]]*)\]$/;
const MAX_FILTERS = 10;

export function customFieldConditions(
  qs: Record<string, string | undefined>,
  alias: 's' | 'c',
): Array<Expression<SqlBool>> {
  const out: Array<Expression<SqlBool>> = [];
  for (const [key, raw] of Object.entries(qs)) {
    const m = PARAM_RE.exec(key);
    if (!m || raw === undefined) continue;
    const slug = m[1]!;
    if (slug === '' || slug.length > 100)
      throw badParameter(key, `${key} must name a custom field api_slug.`);
    if (raw.length > 500) throw badParameter(key, `${key} must be at most 500 characters.`);
    if (out.length === MAX_FILTERS) throw badParameter(key, `At most ${MAX_FILTERS} custom field filters.`);
    out.push(sql<SqlBool>`exists (
      select 1 from custom_field_values v
        join custom_field_definitions d on d.id = v.definition_id
       where v.entity_id = ${sql.ref(`${alias}.id`)} and v.account_id = ${sql.ref(`${alias}.account_id`)}
         and d.api_slug = ${slug}
         and (v.value #>> '{}' = ${raw} or v.value @> jsonb_build_array(${raw}::text)))`);
  }
  return out;
}
