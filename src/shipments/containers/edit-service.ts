import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { ApiError, notFound } from '../../errors.ts';
import { isUuid } from '../../util/uuid.ts';
import { type ContainerRow, eventSummaries, findContainer } from './queries.ts';

// Container edits (PATCH /v2/containers/{id}): only ref_numbers are the user's to change; the
// rest of a container comes from carriers.

export interface ContainerEdit {
  ref_numbers?: string[];
}

export async function editContainer(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  edit: ContainerEdit,
): Promise<{ row: ContainerRow; events: Awaited<ReturnType<typeof eventSummaries>> }> {
  const refs = edit.ref_numbers;
  refs?.forEach((v, i) => {
    if (v.trim() === '') {
      throw new ApiError(422, [
        {
          source: { pointer: `/data/attributes/ref_numbers/${i}` },
          detail: "ref_numbers entries can't be blank",
          code: 'blank',
        },
      ]);
    }
  });
  if (!isUuid(id)) throw notFound('No container with this id.');
  if (refs !== undefined) {
    const updated = await db
      .updateTable('containers')
      .set({ ref_numbers: [...new Set(refs.map((s) => s.trim()))], updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!updated) throw notFound('No container with this id.');
  }
  const row = await findContainer(db, accountId, id);
  if (!row) throw notFound('No container with this id.');
  return { row, events: await eventSummaries(db, accountId, [id]) };
}
