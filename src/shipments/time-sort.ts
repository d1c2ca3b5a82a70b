import { badParameter } from '../errors.ts';

// `sort=` of the lists ordered by creation or update time (shipments, containers, tracking
// requests): the same values, default and 400 on each.

export const SORTS = ['created_at', '-created_at', 'updated_at', '-updated_at'];

export interface TimeSort {
  column: 'created_at' | 'updated_at';
  desc: boolean;
}

/** One of SORTS (default -created_at); anything else is a 400. */
export function parseTimeSort(raw: string | undefined): TimeSort {
  const sort = raw ?? '-created_at';
  if (!SORTS.includes(sort)) throw badParameter('sort', `sort must be one of ${SORTS.join(', ')}.`);
  return { column: sort.replace('-', '') as TimeSort['column'], desc: sort.startsWith('-') };
}
