import type { Selectable } from 'kysely';
import type { ContainersTable } from '../../db/schema.ts';
import { iso } from '../../jsonapi/resource.ts';

// The container attributes that come from the POD terminal (engine/terminal-check.ts stores them,
// migrations/0039), as the reference serves them. They read the stored row, not members.ts's
// ContainerSource: members.ts imports this file.

type Container = Selectable<ContainersTable>;

/** jsonb arrays: PostgreSQL answers them parsed; be lenient with a string. */
export function jsonList(v: unknown): unknown[] {
  const parsed = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(parsed) ? parsed : [];
}

/**
 * A discharged box the terminal reports on is `available` or `not_available` (the reference's
 * statuses); everything else is the status the carrier's events give.
 */
export function servedStatus(
  c: Pick<Container, 'current_status' | 'availability_known' | 'available_for_pickup'>,
): string {
  if (c.current_status === 'grounded' && c.availability_known && c.available_for_pickup !== null)
    return c.available_for_pickup ? 'available' : 'not_available';
  return c.current_status;
}

/** The last free days by who sets them (the coalesced one is `pickup_lfd`). */
export function importDeadlines(
  c: Pick<Container, 'pickup_lfd_terminal' | 'pickup_lfd_rail' | 'pickup_lfd_line'>,
) {
  return {
    pickup_lfd_terminal: iso(c.pickup_lfd_terminal),
    pickup_lfd_rail: iso(c.pickup_lfd_rail),
    pickup_lfd_line: iso(c.pickup_lfd_line),
  };
}
