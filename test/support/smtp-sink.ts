import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as an SMTP server received it: the envelope, the headers and the raw text. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** Header names in lower case; folded lines unfolded. */
  headers: Map<string, string>;
  raw: string;
}

/**
 * A real SMTP server on loopback, for tests that count what the app handed to the outside world:
 * an email counts here once the SMTP conversation delivered it, whatever our own tables say.
 */
export class SmtpSink {
  /**
   * Called as each message is received, right after the server answered that it took it: the
   * moment the sender's hand-over is done (a test cuts the sender's other connections here).
   */
  onReceived?: (mail: ReceivedMail) => void;
  /** While set, the server holds its answer to each message until this settles: a slow SMTP server. */
  holdAnswers?: Promise<void>;
  /**
   * While set, each message for which it says true is turned away with a temporary failure (451,
   * "try again later") and not kept: a mail server that is busy, or greylists.
   */
  refuse?: (mail: ReceivedMail) => boolean;

  private constructor(
    private readonly server: SMTPServer,
    readonly received: ReceivedMail[],
    private readonly host: string,
  ) {}

  /** `host`: the address it listens on (a rig's driver address, for apps on other hosts). */
  static async start(host = '127.0.0.1'): Promise<SmtpSink> {
    const received: ReceivedMail[] = [];
    const made: { sink?: SmtpSink } = {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', async () => {
          await made.sink?.holdAnswers;
          const raw = Buffer.concat(chunks).toString('utf8');
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            headers: parseHeaders(raw),
            raw,
          };
          if (made.sink?.refuse?.(mail)) {
            const busy = Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 });
            callback(busy);
            return;
          }
          received.push(mail);
          callback();
          made.sink?.onReceived?.(mail);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    made.sink = new SmtpSink(server, received, host);
    return made.sink;
  }

  /** What the app's SMTP_URL should be. */
  get url(): string {
    const { port } = this.server.server.address() as AddressInfo;
    return `smtp://${this.host}:${port}`;
  }

  /** The messages whose header `name` has this value (for example a Message-ID). */
  withHeader(name: string, value: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.headers.get(name.toLowerCase()) === value);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function parseHeaders(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/, 1)[0].replace(/\r?\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}
