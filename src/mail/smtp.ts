import type { Logger } from 'pino';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createStorage } from '../documents/storage.ts';
import { accountOfAddress } from './addresses.ts';
import { ingestMessage } from './ingest.ts';

// The inbound SMTP listener: accepts mail for the accounts' inbound addresses only (anything else
// is refused at RCPT with a 550), within SMTP_MAX_BYTES (announced with SIZE, enforced on DATA),
// and turns each message into an email submission and its documents before answering 250.

export interface SmtpListener {
  port: number;
  close(): Promise<void>;
}

type Session = { envelope: { rcptTo: Array<{ address: string }> } } & { accounts?: Set<string> };

export async function startSmtpServer(o: {
  database: Database;
  config: Config;
  log: Logger;
}): Promise<SmtpListener> {
  const { db } = o.database;
  const { mail, documents } = o.config;
  const storage = createStorage(o.config);
  const smtpError = (message: string, code: number) =>
    Object.assign(new Error(message), { responseCode: code });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: mail.maxBytes,
    banner: 'tracker document inbox',
    logger: false,
    onRcptTo(address, session, callback) {
      accountOfAddress(db, address.address, mail.inboundDomain)
        .then((account) => {
          if (!account) return callback(smtpError(`5.1.1 <${address.address}>: no such mailbox`, 550));
          const s = session as unknown as Session;
          s.accounts ??= new Set();
          s.accounts.add(account);
          callback();
        })
        .catch((err) => callback(smtpError(`4.3.0 temporary failure: ${(err as Error).message}`, 451)));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(smtpError(`5.3.4 message larger than ${mail.maxBytes} bytes`, 552));
        }
        const accounts = [...((session as unknown as Session).accounts ?? [])];
        ingestMessage(
          { db, storage, log: o.log, maxBytes: documents.maxBytes },
          Buffer.concat(chunks),
          accounts,
        )
          .then((r) => {
            o.log.info({ submissions: r.map((x) => x.submissionId) }, 'email received');
            callback(null, `2.0.0 accepted: ${r.reduce((n, x) => n + x.documentIds.length, 0)} document(s)`);
          })
          .catch((err) => {
            o.log.error({ err }, 'email not ingested');
            callback(smtpError('4.3.0 could not store the message; try again later', 451));
          });
      });
    },
  });
  server.on('error', (err) => o.log.error({ err }, 'smtp server error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(mail.smtpPort ?? 0, mail.smtpHost, () => resolve());
  });
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  o.log.info({ port, host: mail.smtpHost, domain: mail.inboundDomain }, 'smtp listener started');
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
