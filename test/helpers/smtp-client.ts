import { connect, type Socket } from 'node:net';

// A minimal SMTP client over node:net: enough to deliver one message and see every reply code.

export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export function mimeMessage(o: {
  from: string;
  to: string[];
  cc?: string[];
  subject: string;
  text: string;
  messageId: string;
  date: Date;
  attachments: Attachment[];
}): string {
  const boundary = `b_${Math.random().toString(36).slice(2)}`;
  const head = [
    `From: Carrier Desk <${o.from}>`,
    `To: ${o.to.join(', ')}`,
    ...(o.cc?.length ? [`Cc: ${o.cc.join(', ')}`] : []),
    `Subject: ${o.subject}`,
    `Message-ID: ${o.messageId}`,
    `Date: ${o.date.toUTCString()}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.text,
  ];
  for (const a of o.attachments) {
    head.push(
      `--${boundary}`,
      `Content-Type: ${a.contentType}; name="${a.filename}"`,
      'Content-Transfer-Encoding: base64',
      `Content-Disposition: attachment; filename="${a.filename}"`,
      '',
      ...(a.content.toString('base64').match(/.{1,76}/g) ?? []),
    );
  }
  head.push(`--${boundary}--`, '');
  return head.join('\r\n');
}

/** Sends a message; answers the reply code of each step (stops at the first refusal). */
export async function sendMail(
  port: number,
  envelope: { from: string; to: string[] },
  message: string,
): Promise<{ rcpt: number[]; data: number | null; dataText: string }> {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let buffer = '';
  const waiters: Array<(line: string) => void> = [];
  socket.on('data', (d: string) => {
    buffer += d;
    for (;;) {
      // A reply ends with a line "NNN text" (a space after the code, not a dash).
      const m = /^(?:\d{3}-.*\r\n)*\d{3} .*\r\n/.exec(buffer);
      if (!m) break;
      buffer = buffer.slice(m[0].length);
      waiters.shift()?.(m[0]);
    }
  });
  const reply = () => new Promise<string>((resolve) => waiters.push(resolve));
  const cmd = async (line: string) => {
    const r = reply();
    socket.write(`${line}\r\n`);
    return r;
  };
  const code = (r: string) => Number(r.trimEnd().split('\r\n').at(-1)!.slice(0, 3));
  try {
    await reply();
    await cmd('EHLO test.local');
    await cmd(`MAIL FROM:<${envelope.from}>`);
    const rcpt: number[] = [];
    for (const to of envelope.to) rcpt.push(code(await cmd(`RCPT TO:<${to}>`)));
    if (!rcpt.some((c) => c === 250)) {
      await cmd('QUIT');
      return { rcpt, data: null, dataText: '' };
    }
    await cmd('DATA');
    const body = message.replace(/\r\n\./g, '\r\n..');
    const r = reply();
    socket.write(`${body}\r\n.\r\n`);
    const dataText = await r;
    await cmd('QUIT');
    return { rcpt, data: code(dataText), dataText };
  } finally {
    socket.end();
  }
}
