import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

/**
 * The process logger: JSON lines for log collectors, or pino-pretty's readable lines when the
 * stream is a terminal (a developer's first run). `to: 'stderr'` is for programs whose stdout
 * carries a protocol (the MCP stdio server).
 */
export function createLogger(level: string, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const fd = to === 'stderr' ? 2 : 1;
  const stream = to === 'stderr' ? process.stderr : process.stdout;
  if (stream.isTTY) {
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
