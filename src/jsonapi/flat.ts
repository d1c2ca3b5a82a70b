import type { TSchema } from 'typebox';
import type { Resource } from './resource.ts';

// A resource as one spreadsheet row: `id`, every attribute of its schema in declared order, then
// `<relationship>_id` (to-one) or `<relationship>_ids` (to-many). The columns come from the
// resource's schema (itself made from the resource's declaration), so an export has a column for
// every member the API serves, in the same order, even when the list is empty.

export interface FlatColumn {
  header: string;
  value: (r: Resource) => unknown;
}

const propertiesOf = (schema: TSchema | undefined): Record<string, TSchema> =>
  ((schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {}) as Record<
    string,
    TSchema
  >;

const isToMany = (rel: TSchema): boolean =>
  (propertiesOf(rel).data as { type?: string } | undefined)?.type === 'array';

/** The columns of `itemSchema` (a resource schema: id, type, attributes, relationships). */
export function flatColumns(itemSchema: TSchema): FlatColumn[] {
  const top = propertiesOf(itemSchema);
  const columns: FlatColumn[] = [{ header: 'id', value: (r) => r.id }];
  for (const name of Object.keys(propertiesOf(top.attributes))) {
    columns.push({ header: name, value: (r) => (r.attributes as Record<string, unknown>)[name] });
  }
  for (const [name, rel] of Object.entries(propertiesOf(top.relationships))) {
    const many = isToMany(rel);
    columns.push({
      header: `${name}_${many ? 'ids' : 'id'}`,
      value: (r) => {
        const data = (r.relationships as Record<string, { data?: unknown }> | undefined)?.[name]?.data;
        if (Array.isArray(data)) return data.map((d) => (d as { id: string }).id);
        return (data as { id?: string } | null | undefined)?.id ?? null;
      },
    });
  }
  return columns;
}

/** One cell: text as is, lists joined with "; ", other structures as JSON, null as empty. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.join('; ');
  return JSON.stringify(v);
}

export const flatRow = (columns: readonly FlatColumn[], r: Resource): string[] =>
  columns.map((c) => cell(c.value(r)));
