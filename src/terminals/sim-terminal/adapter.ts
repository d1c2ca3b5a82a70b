import type { AuthProvider } from '../../carriers/auth.ts';
import { errorText } from '../../carriers/auth.ts';
import type { RateBudget } from '../../carriers/rate-budget.ts';
import type { TerminalAdapter, TerminalResult } from '../types.ts';
import { readSimTerminalAnswer } from './read.ts';

// TerminalAdapter `sim-terminal`: the carrier simulator's terminal feed over HTTP,
// GET {base_url}/terminal/v1/facilities/{smdg}/containers/{number}. Auth and the request budget
// are the carriers' (carriers/auth.ts, carriers/rate-budget.ts), one budget per configured entry.

export const SIM_TERMINAL_ADAPTER = 'sim-terminal';

export interface SimTerminalOptions {
  baseUrl: string;
  covers(facility: string): boolean;
  auth: AuthProvider | null;
  budget: RateBudget;
  timeoutMs: number;
}

export function createSimTerminalAdapter(o: SimTerminalOptions): TerminalAdapter {
  const base = o.baseUrl.replace(/\/+$/, '');
  async function check(
    facility: string,
    container: string,
    signal?: AbortSignal,
    retried = false,
  ): Promise<TerminalResult> {
    const b = await o.budget.acquire(signal);
    if (!b.ok)
      return {
        kind: 'temporary_failure',
        detail: 'terminal request budget exhausted',
        retryAfterMs: b.retryAfterMs,
      };
    const auth = o.auth ? await o.auth.headers(signal) : { ok: true as const, headers: {} };
    if (!auth.ok) return { kind: 'temporary_failure', detail: auth.detail, retryAfterMs: auth.retryAfterMs };
    const url = `${base}/terminal/v1/facilities/${encodeURIComponent(facility)}/containers/${encodeURIComponent(container)}`;
    const timeout = AbortSignal.timeout(o.timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: 'application/json', ...auth.headers },
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      return { kind: 'temporary_failure', detail: `terminal feed unreachable: ${errorText(err)}` };
    }
    const body = await res.text().catch(() => '');
    if (res.status === 401 && !retried && o.auth?.invalidate())
      return check(facility, container, signal, true);
    if (res.status === 404) return { kind: 'not_found' };
    if (res.status !== 200) {
      const retry = Number(res.headers.get('retry-after'));
      return {
        kind: 'temporary_failure',
        detail: `terminal feed answered HTTP ${res.status}`,
        ...(Number.isFinite(retry) && retry > 0 ? { retryAfterMs: retry * 1000 } : {}),
      };
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return { kind: 'temporary_failure', detail: 'terminal feed sent malformed JSON' };
    }
    const status = readSimTerminalAnswer(json);
    return status
      ? { kind: 'found', status }
      : { kind: 'temporary_failure', detail: 'unrecognized terminal answer' };
  }
  return {
    name: SIM_TERMINAL_ADAPTER,
    covers: o.covers,
    async check(query, signal) {
      try {
        return await check(query.facility, query.container, signal);
      } catch (err) {
        return { kind: 'temporary_failure', detail: `terminal adapter error: ${errorText(err)}` };
      }
    },
  };
}
