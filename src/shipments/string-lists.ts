import { ApiError } from '../errors.ts';

// The free-text lists a shipment carries (ref_numbers, tags), as edited through shipments and
// through their tracking requests: the same rules on both paths.

/** A blank entry is a 422 pointing at it (`/data/attributes/<name>/<index>`). */
export function rejectBlankEntries(lists: ReadonlyArray<readonly [string, string[] | undefined]>): void {
  for (const [name, values] of lists) {
    values?.forEach((v, i) => {
      if (v.trim() === '') {
        throw new ApiError(422, [
          {
            source: { pointer: `/data/attributes/${name}/${i}` },
            detail: `${name} entries can't be blank`,
            code: 'blank',
          },
        ]);
      }
    });
  }
}

/** Entries trimmed, repeats dropped (first kept); undefined stays undefined (not edited). */
export const cleanEntries = (v: string[] | undefined): string[] | undefined =>
  v ? [...new Set(v.map((s) => s.trim()))] : undefined;
