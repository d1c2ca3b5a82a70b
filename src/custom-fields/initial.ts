import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ApiError, type ErrorObject } from '../errors.ts';
import { definitionsBySlugs, optionsOf } from './definition-queries.ts';
import { checkValue } from './value-check.ts';

// initial_custom_fields of a tracking request: checked at create (each api_slug must name a
// definition of the right entity type, each value must fit it), then staged on the request and
// applied by the database when the shipment and containers appear (migrations/0032).

export interface InitialEntry {
  api_slug: string;
  value: unknown;
  number?: string;
}
export interface InitialCustomFields {
  shipment?: InitialEntry[];
  containers?: InitialEntry[];
}

const P = '/data/attributes/initial_custom_fields';
const GROUPS = [
  ['shipment', 'Shipment'],
  ['containers', 'Container'],
] as const;

export async function checkInitialCustomFields(
  db: Kysely<DB>,
  accountId: string,
  input: InitialCustomFields | undefined,
): Promise<InitialCustomFields | null> {
  if (!input) return null;
  const entries = [...(input.shipment ?? []), ...(input.containers ?? [])];
  if (entries.length === 0) return null;
  const defs = await definitionsBySlugs(
    db,
    accountId,
    entries.map((e) => e.api_slug),
  );
  const options = await optionsOf(
    db,
    accountId,
    defs.map((d) => d.id),
  );
  const errors: Array<Omit<ErrorObject, 'status' | 'title'>> = [];
  for (const [group, entityType] of GROUPS) {
    (input[group] ?? []).forEach((e, i) => {
      const def = defs.find((d) => d.api_slug === e.api_slug);
      if (!def || def.entity_type !== entityType) {
        errors.push({
          source: { pointer: `${P}/${group}/${i}/api_slug` },
          detail: `No ${entityType} custom field definition with api_slug '${e.api_slug}'.`,
          code: 'not_found',
        });
        return;
      }
      const problem = checkValue(
        def,
        e.value,
        options.filter((o) => o.definition_id === def.id),
      );
      if (problem) {
        errors.push({
          source: { pointer: `${P}/${group}/${i}/value` },
          detail: `${def.api_slug} ${problem}.`,
          code: 'invalid_value',
        });
      }
    });
  }
  if (errors.length) throw new ApiError(422, errors);
  return {
    shipment: input.shipment ?? [],
    containers: (input.containers ?? []).map((e) =>
      e.number ? { ...e, number: e.number.replace(/\s+/g, '').toUpperCase() } : e,
    ),
  };
}
