import { STATUS_CODES } from 'node:http';

// Response helpers shared by the simulator's DCSA endpoints.

export const API_VERSION = '2.2.0';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Hold the answer this long first (a carrier that stops answering). */
  delayMs?: number;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

/** A DCSA error body: {httpMethod, requestUri, statusCode, statusCodeText, errorDateTime, errors}. */
export function dcsaError(
  request: { method: string; uri: string },
  status: number,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): Reply {
  return json(
    status,
    {
      httpMethod: request.method,
      requestUri: request.uri,
      statusCode: status,
      statusCodeText: STATUS_CODES[status] ?? 'Error',
      errorDateTime: new Date().toISOString(),
      errors: [{ reason, message }],
    },
    { 'API-Version': API_VERSION, ...headers },
  );
}
