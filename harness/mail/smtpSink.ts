/**
 * A local SMTP server for the tests and the harness: it accepts every mail on
 * loopback, parses it with mailparser, and keeps it for the test to read.
 * A test can make it refuse a recipient (a 4xx or 5xx reply to RCPT TO,
 * RFC 5321 §4.2.2) or go down and come back on the same port, to judge
 * how the sender retries.
 */
import type { Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  /** `smtp://127.0.0.1:PORT` (no credentials needed; authOptional). */
  url: string;
  port: number;
  /**
   * Every mail accepted so far, parsed by mailparser's simpleParser, in
   * arrival order.
   */
  messages: ParsedMail[];
  /**
   * Resolves once at least n mails have been accepted and parsed (no timer
   * of its own; the test's timeout is the hang limit).
   */
  waitForMessages(n: number): Promise<ParsedMail[]>;
  /**
   * Answer RCPT TO for this address (case-insensitive) with `code` (e.g.
   * 451 or 550) for the next `times` attempts (default: always).
   */
  rejectRecipient(address: string, code: number, times?: number): void;
  /** Stop listening and destroy open connections: the port refuses connections. */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

interface Rejection {
  code: number;
  /** Attempts left to refuse; Infinity for always. */
  left: number;
}

interface Waiter {
  count: number;
  resolve: (messages: ParsedMail[]) => void;
}

const HOST = '127.0.0.1';

/**
 * Starts the sink on loopback.
 *
 * @param options.port the port to listen on; without it, a free port (0)
 *   chosen by the system
 * @returns the running sink (see {@link SmtpSink}); its `port` is the one
 *   actually bound
 * @throws the listen error (e.g. `EADDRINUSE`) when the port is taken
 */
export async function startSmtpSink(
  options: { port?: number } = {},
): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const waiters: Waiter[] = [];
  const rejections = new Map<string, Rejection>();
  const sockets = new Set<Socket>();
  let server: SMTPServer | undefined;

  function settleWaiters(): void {
    for (const waiter of [...waiters]) {
      if (messages.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve([...messages]);
      }
    }
  }

  function createServer(): SMTPServer {
    const created = new SMTPServer({
      authOptional: true,
      // Without STARTTLS on offer, nodemailer sends in plain text instead
      // of trying TLS against smtp-server's self-signed certificate.
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const key = address.address.toLowerCase();
        const rejection = rejections.get(key);
        if (rejection && rejection.left > 0) {
          rejection.left -= 1;
          if (rejection.left === 0) rejections.delete(key);
          callback(
            Object.assign(
              new Error(`Refused by the test sink: ${address.address}`),
              { responseCode: rejection.code },
            ),
          );
          return;
        }
        callback();
      },
      onData(stream, _session, callback) {
        simpleParser(stream).then(
          (parsed) => {
            messages.push(parsed);
            settleWaiters();
            callback();
          },
          (error: unknown) => {
            callback(error instanceof Error ? error : new Error(String(error)));
          },
        );
      },
    });
    // A client that drops its connection (ECONNRESET, a sender's own
    // timeout) is reported here; the tests make senders do just that, and
    // an 'error' event without a listener would end the test process.
    // Listen errors reach listen() through the net server.
    created.on('error', () => undefined);
    // smtp-server's close() waits up to 30 s for open sessions; the sink
    // ends them at once instead, so it tracks their sockets.
    created.server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    return created;
  }

  function listen(port: number): Promise<number> {
    const next = createServer();
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      next.server.once('error', onError);
      next.listen(port, HOST, () => {
        next.server.off('error', onError);
        server = next;
        const address = next.server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error('The SMTP sink is not on a TCP port'));
          return;
        }
        resolve(address.port);
      });
    });
  }

  function close(): Promise<void> {
    const current = server;
    server = undefined;
    if (!current) return Promise.resolve();
    return new Promise((resolve) => {
      current.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  }

  const port = await listen(options.port ?? 0);

  return {
    url: `smtp://${HOST}:${port}`,
    port,
    messages,
    waitForMessages(n) {
      if (messages.length >= n) return Promise.resolve([...messages]);
      return new Promise((resolve) => waiters.push({ count: n, resolve }));
    },
    rejectRecipient(address, code, times = Infinity) {
      rejections.set(address.toLowerCase(), { code, left: times });
    },
    down: close,
    // A closed SMTPServer registers its listening and close handlers
    // once, so a new instance takes the port over rather than the old one
    // listening again.
    async up() {
      if (server) return;
      await listen(port);
    },
    stop: close,
  };
}
