import type { Transporter } from 'nodemailer';
import type { SmtpOut } from '../../config/schema-alerts.ts';

// The outbound SMTP client (nodemailer) of alert e-mails: one pooled transport per worker process,
// made on the first message: nodemailer (~4 MB of heap) stays unloaded in a worker that sends none.

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Stable per message, so every retry is the same message to the receiving side. */
  messageId: string;
  headers: Record<string, string>;
}

export interface Mailer {
  /** Resolves when the server accepted the message; rejects with its reply otherwise. */
  send(m: OutgoingMail): Promise<void>;
  close(): void;
}

export function smtpMailer(smtp: SmtpOut, maxConnections: number): Mailer {
  let transport: Promise<Transporter> | undefined;
  let closed = false;
  const open = async (): Promise<Transporter> => {
    const { default: nodemailer } = await import('nodemailer');
    return nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: smtp.requireTls,
      auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
      pool: true,
      maxConnections,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  };
  return {
    async send(m) {
      if (closed) throw new Error('mailer closed');
      transport ??= open();
      await (await transport).sendMail({
        from: m.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        messageId: m.messageId,
        headers: m.headers,
      });
    },
    close: () => {
      closed = true;
      void transport?.then(
        (t) => t.close(),
        () => {},
      );
    },
  };
}

/** What an SMTP failure is logged and stored as: the server's reply or the connection error, never the message. */
export function smtpError(err: unknown): string {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
  if (e.responseCode) return `${e.responseCode} ${e.response ?? ''}`.trim();
  return [e.code, e.message].filter(Boolean).join(': ') || 'unknown error';
}
