// Configuration of operations: metrics and the number of API processes.
import { custom, integer, oneOf, optionalInteger } from './setting.ts';

export const OPS_SCHEMA = {
  METRICS: oneOf(
    'open',
    ['off', 'open', 'token'],
    'GET /metrics: off, open, or token (needs METRICS_TOKEN; Authorization: Bearer <token>).',
  ),
  API_PROCESSES: integer(
    1,
    'API processes sharing the port (node:cluster); also `npm start -- --processes N`. Needs DATABASE_URL when above 1.',
    { min: 1, max: 64, label: 'API_PROCESSES / --processes' },
  ),
  METRICS_PORT: optionalInteger(
    1,
    65535,
    'With --processes N and role all: port where the worker process serves /metrics and /healthz (role worker uses PORT).',
  ),
  METRICS_TOKEN: custom(
    'string',
    '(unset)',
    'Bearer token for /metrics when METRICS=token.',
    ({ name, env }): string | null => env[name] || null,
  ),
  TRACKER_API_KEY: custom(
    'string',
    '(unset)',
    'API key that `npm run mcp` (the MCP server over stdio) acts with; its account is what the agent sees.',
    ({ name, env }): string | null => env[name]?.trim() || null,
  ),
};
