import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A real local SMTP server for outbound-mail tests: it receives over TCP, parses each message with
// mailparser, and can refuse the next N messages with a transient 451 (a server that fails at first).

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** The header lines as sent. */
  headerLines: string;
}

export interface SmtpSink {
  url: string;
  mails: ReceivedMail[];
  /** Messages for `address`, in arrival order. */
  to(address: string): ReceivedMail[];
  /** Refuse the next `n` messages with 451 (after DATA, as a busy server does). */
  failNext(n: number): void;
  /** Messages refused so far. */
  refused(): number;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  let failing = 0;
  let refused = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (failing > 0) {
          failing--;
          refused++;
          const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
          callback(err);
          return;
        }
        const m = await simpleParser(Buffer.concat(chunks));
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          subject: m.subject ?? '',
          text: m.text ?? '',
          html: typeof m.html === 'string' ? m.html : '',
          messageId: m.messageId ?? '',
          headerLines: m.headerLines.map((l) => l.line).join('\n'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    to: (address) => mails.filter((m) => m.to.includes(address)),
    failNext(n) {
      failing = n;
    },
    refused: () => refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
