import { sql } from 'kysely';
import { recordDomainEvents } from '../domain-events/record.ts';
import { allShippingLines } from '../reference/data.ts';
import { inferNumber } from '../reference/infer.ts';
import { lockLease } from '../worker/leases.ts';
import type { ClaimedRequest } from './claims.ts';
import type { EngineDeps } from './deps.ts';

// auto_detect_vocc_scac (issue 13): a request created without a SCAC gets one here, before its
// first carrier call, from the same inference as POST /tracking_requests/infer_number. Only a
// confident single line that tracks this kind of number is taken; otherwise the request fails
// with scac_auto_detect_failed (and tracking_request.failed is announced), as the reference does.

const SUPPORT = {
  bill_of_lading: 'bill_of_lading_tracking_support',
  booking_number: 'booking_number_tracking_support',
  container: 'container_number_tracking_support',
} as const;

/** The SCAC the number belongs to, or null when no supported line can be inferred. */
export function detectScac(
  requestNumber: string,
  requestType: ClaimedRequest['request_type'],
): string | null {
  const lines = allShippingLines();
  const outcome = inferNumber(requestNumber, lines);
  if (!outcome.ok) return null;
  const selected = outcome.value.shipping_line.selected;
  if (outcome.value.shipping_line.decision !== 'auto_select' || !selected) return null;
  const line = lines.find((l) => l.scac === selected.scac);
  return line?.[SUPPORT[requestType]] ? line.scac : null;
}

/**
 * Gives a claimed request without a SCAC its SCAC, or fails it. Answers the request to go on
 * with, or null when it has been failed (nothing more to do this attempt).
 */
export async function resolveScac(deps: EngineDeps, tr: ClaimedRequest): Promise<ClaimedRequest | null> {
  if (tr.scac !== null) return tr;
  const scac = detectScac(tr.request_number, tr.request_type);
  const failed = await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, 'tracking_requests', tr.id, deps.owner);
    if (scac) {
      // The same number at the same line may already be pending or tracked: that is a duplicate.
      const clash = await tx
        .selectFrom('tracking_requests')
        .select('id')
        .where('account_id', '=', tr.account_id)
        .where('scac', '=', scac)
        .where('request_number', '=', tr.request_number)
        .where('status', 'in', ['pending', 'awaiting_manifest', 'created'])
        .executeTakeFirst();
      if (!clash) {
        await tx.updateTable('tracking_requests').set({ scac }).where('id', '=', tr.id).execute();
        return null;
      }
    }
    const reason = scac ? 'duplicate' : 'scac_auto_detect_failed';
    await tx
      .updateTable('tracking_requests')
      .set({
        status: 'failed',
        failed_reason: reason,
        is_retrying: false,
        next_attempt_at: null,
        lease_owner: null,
        lease_expires_at: null,
        last_attempt_at: deps.now?.() ?? new Date(),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', tr.id)
      .execute();
    await recordDomainEvents(tx, [
      {
        event: 'tracking_request.failed',
        account_id: tr.account_id,
        tracking_request_id: tr.id,
        shipment_id: null,
        reference_type: 'tracking_request',
        reference_id: tr.id,
      },
    ]);
    return reason;
  });
  return failed ? null : { ...tr, scac: scac! };
}
