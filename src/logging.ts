import pino, { type Logger } from 'pino';

/**
 * The process logger: JSON lines for log collectors, or pino-pretty's readable lines when the
 * stream is a terminal (a developer's first run). `to: 'stderr'` is for programs whose stdout
 * carries a protocol (the MCP stdio server). pino-pretty is loaded only for a terminal, so
 * services under a supervisor do not pay for it at start.
 */
export async function createLogger(level: string, to: 'stdout' | 'stderr' = 'stdout'): Promise<Logger> {
  const fd = to === 'stderr' ? 2 : 1;
  const stream = to === 'stderr' ? process.stderr : process.stdout;
  if (stream.isTTY) {
    const { default: pretty } = await import('pino-pretty');
    return pino(
      { level },
      pretty({
        colorize: true,
        destination: fd,
        sync: true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname',
      }),
    );
  }
  return to === 'stderr' ? pino({ level }, pino.destination({ fd: 2, sync: true })) : pino({ level });
}
