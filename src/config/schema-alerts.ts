// Configuration of e-mail alerts (src/alerts/): the outbound SMTP server, the sender, the limits of
// a rule and the retry schedule of a message.
import { parseScheduleConfig } from './readers.ts';
import { custom, integer } from './setting.ts';

const DEFAULT_RETRY_SCHEDULE = '30s,2m,5m,30m,1h,2h,5h,10h,24h';
const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+$/;

/** Where alert e-mails go out: the SMTP_OUT_URL as nodemailer's transport options need it. */
export interface SmtpOut {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte; smtp://: plain, upgraded with STARTTLS when offered. */
  secure: boolean;
  /** ?starttls=required: refuse to send unless the server upgrades the connection. */
  requireTls: boolean;
  user: string | null;
  password: string | null;
}

export const ALERT_SCHEMA = {
  SMTP_OUT_URL: custom(
    'smtp:// or smtps:// URL',
    '(unset)',
    'Outbound SMTP server alert e-mails are sent through, e.g. smtp://user:pass@mail.example.com:587 (smtps:// for TLS from the start, ?starttls=required to insist on STARTTLS). Unset: alert rules can be managed but nothing is sent.',
    ({ name, problems, read }): SmtpOut | null => {
      const u = read.url(name, ['smtp:', 'smtps:'], 'smtp://user:pass@mail.example.com:587', true);
      if (!u) return null;
      const starttls = u.searchParams.get('starttls');
      const others = [...u.searchParams.keys()].filter((k) => k !== 'starttls');
      if (others.length > 0 || (starttls !== null && starttls !== 'required') || u.hash) {
        problems.push(`${name}: the only query parameter is starttls=required`);
        return null;
      }
      const secure = u.protocol === 'smtps:';
      return {
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port ? Number(u.port) : secure ? 465 : 587,
        secure,
        requireTls: starttls === 'required',
        user: u.username ? decodeURIComponent(u.username) : null,
        password: u.password ? decodeURIComponent(u.password) : null,
      };
    },
  ),
  ALERT_FROM: custom(
    'e-mail address',
    'alerts@localhost',
    'Sender (From) of alert e-mails.',
    ({ name, problems, read }) => {
      const v = read.str(name, 'alerts@localhost').trim();
      if (!EMAIL.test(v)) {
        problems.push(`${name} must be an e-mail address, got "${v}"`);
        return 'alerts@localhost';
      }
      return v;
    },
  ),
  ALERT_MAX_RECIPIENTS: integer(20, 'Addresses one alert rule may name.', { min: 1, max: 1000 }),
  ALERT_MAX_RULES: integer(100, 'Alert rules one account may have.', { min: 1, max: 100000 }),
  ALERT_DIGEST_MAX_EVENTS: integer(
    200,
    'Events listed in one digest message; the rest are counted ("and N more").',
    { min: 1, max: 10000 },
  ),
  ALERT_CONCURRENCY: integer(4, 'Alert messages being sent at once per worker process.', {
    min: 1,
    max: 1000,
  }),
  ALERT_RETRY_SCHEDULE: custom(
    'comma list of durations',
    DEFAULT_RETRY_SCHEDULE,
    'Delays before the retries of an alert message the SMTP server did not take; then it is failed.',
    ({ name, problems, read }): number[] => {
      try {
        return parseScheduleConfig(read.str(name, DEFAULT_RETRY_SCHEDULE));
      } catch (err) {
        problems.push(`${name}: ${(err as Error).message}`);
        return [];
      }
    },
  ),
};
