import { Type } from 'typebox';
import { iso, type Resource, selfLink } from '../jsonapi/resource.ts';
import { resourceSchema } from '../jsonapi/schemas.ts';
import type { Party } from './queries.ts';

export const PartySchema = resourceSchema(
  'party',
  Type.Object({
    company_name: Type.String(),
    created_at: Type.String({ description: 'Beyond the reference.' }),
    updated_at: Type.String({ description: 'Beyond the reference.' }),
  }),
  null,
);

export function serializeParty(p: Party): Resource {
  return {
    id: p.id,
    type: 'party',
    attributes: {
      company_name: p.company_name,
      created_at: iso(p.created_at),
      updated_at: iso(p.updated_at),
    },
    links: selfLink(`/parties/${p.id}`),
  };
}
