/**
 * The SMTP server `npm run bench:api` sends the service's mail to, in a
 * process of its own so that it shares no event loop with the load
 * generator: smtp-server on loopback, accepting every mail and counting it
 * (a real receiving server's work: the SMTP dialogue and reading the
 * message). It prints `PORT <n>` when listening, `COUNT <count>` on
 * SIGUSR2 (the mails so far, for a measured window), and, on SIGTERM,
 * `MAILS <count>`, then exits.
 *
 * Usage: `node --import tsx scripts/bench/benchSmtpSink.ts`
 */
import { SMTPServer } from 'smtp-server';

let mails = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      mails += 1;
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`PORT ${port}`);
});
process.on('SIGUSR2', () => {
  console.log(`COUNT ${mails}`);
});
process.once('SIGTERM', () => {
  console.log(`MAILS ${mails}`);
  process.exit(0);
});
