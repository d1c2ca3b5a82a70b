// Configuration of the tracking worker: carriers, role, leasing, retries and tracking cadences.
import { type CarrierConfigEntry, CarrierConfigError, loadCarriersConfigFile } from './carriers.ts';
import { custom, integer, oneOf } from './setting.ts';
import { loadTerminalsConfigFile, type TerminalConfigEntry } from './terminals.ts';

const DAY_MS = 86_400_000;

export const WORKER_SCHEMA = {
  CARRIERS_CONFIG: custom(
    'path of a JSON or YAML file',
    '(unset)',
    'Path of a JSON or YAML file listing carrier connections; unset means only the sandbox SCAC TEST.',
    ({ name, env, problems, read }): { path: string | null; carriers: CarrierConfigEntry[] } => {
      const path = read.str(name, '') || null;
      if (!path) return { path, carriers: [] };
      // The file's contents are part of the check: `${VAR}` references resolve from the same environment.
      try {
        return { path, carriers: loadCarriersConfigFile(path, env) };
      } catch (err) {
        if (!(err instanceof CarrierConfigError)) throw err;
        for (const p of err.problems) problems.push(`CARRIERS_CONFIG ${path}: ${p}`);
        return { path, carriers: [] };
      }
    },
  ),
  TERMINALS_CONFIG: custom(
    'path of a JSON or YAML file',
    '(unset)',
    'Path of a JSON or YAML file listing terminal connections (docs/terminals.md); unset means only the sandbox feed for SCAC TEST.',
    ({ name, env, problems, read }): { path: string | null; terminals: TerminalConfigEntry[] } => {
      const path = read.str(name, '') || null;
      if (!path) return { path, terminals: [] };
      try {
        return { path, terminals: loadTerminalsConfigFile(path, env) };
      } catch (err) {
        if (!(err instanceof CarrierConfigError)) throw err;
        for (const p of err.problems) problems.push(`TERMINALS_CONFIG ${path}: ${p}`);
        return { path, terminals: [] };
      }
    },
  ),
  TERMINAL_CHECK_INTERVAL_MS: integer(
    3_600_000,
    'How often a container at a covered POD terminal is checked at the terminal, from when its POD terminal is known until it leaves.',
    { min: 1 },
  ),
  ROLE: oneOf(
    'all',
    ['api', 'worker', 'all'],
    'api, worker or all (also `npm start -- --role …`).',
    '--role / ROLE',
  ),
  WORKER_POLL_INTERVAL_MS: integer(1000, 'How often an idle worker looks for due work.', { min: 1 }),
  WORKER_LEASE_MS: integer(
    120_000,
    "How long a claimed item stays leased; a crashed worker's items are retaken after this. A carrier or terminal look-up is aborted at half of it (and when the worker stops) and retried later.",
    { min: 10 },
  ),
  WORKER_CONCURRENCY: integer(16, 'Carrier look-ups in flight per worker process.', { min: 1, max: 1000 }),
  TRACKING_RETRY_BASE_MS: integer(
    5300,
    'First retry delay after a temporary carrier failure; doubles each retry (each capped at 12 h), so 14 retries span about 24 h.',
    { min: 1 },
  ),
  TRACKING_RETRY_MAX: integer(
    14,
    'Retries after temporary failures before failed_reason retries_exhausted.',
    {
      min: 0,
      max: 100,
    },
  ),
  AWAITING_MANIFEST_INTERVAL_MS: integer(
    DAY_MS,
    'Re-check period for numbers the carrier does not know yet.',
    {
      min: 1,
    },
  ),
  AWAITING_MANIFEST_MAX_MS: integer(
    7 * DAY_MS,
    'Give up (failed, not_found) after this long awaiting manifest.',
    {
      min: 1,
    },
  ),
  REFRESH_INTERVAL_MS: integer(21_600_000, 'Refresh cadence of active shipments.', { min: 1 }),
  REFRESH_NEAR_ARRIVAL_MS: integer(3_600_000, 'Refresh cadence within 3 days of arrival and until pickup.', {
    min: 1,
  }),
  STOP_ARRIVAL_WINDOW_MS: integer(
    56 * DAY_MS,
    'Stop tracking this long after arrival (past_arrival_window, 56 days).',
    { min: 1 },
  ),
  STOP_FULL_OUT_WINDOW_MS: integer(
    28 * DAY_MS,
    'Stop tracking this long after the last pickup (past_full_out_window, 28 days).',
    { min: 1 },
  ),
  STOP_NO_UPDATES_WINDOW_MS: integer(
    56 * DAY_MS,
    'Stop tracking when the line reports nothing new for this long (no_updates_at_line, 56 days).',
    { min: 1 },
  ),
};
