/**
 * The SMTP transport sends from a thread of its own (ADR-0130): what the
 * sender decides on must cross the thread intact, and no mail may be left
 * waiting for an answer that will never come when the transport closes
 * (its lease would hold it until the lease ran out).
 *
 * On loopback only: an SMTP server of the test's on 127.0.0.1 that refuses
 * one recipient, and a TCP server that accepts and never says hello.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComposedMail } from '../../../server/outbox/channels/email';
import {
  openMailTransport,
  sendFailure,
} from '../../../server/outbox/channels/mailTransport';

const mail = (to: string): ComposedMail => ({
  from: '"Vigil" <no-reply@vigil.test>',
  to,
  subject: 'Example is down',
  text: 'Hello,\n\nExample is down.\n',
  html: '<p>Example is down.</p>',
  messageId: '<vigil-1-1@vigil.test>',
  headers: { 'Auto-Submitted': 'auto-generated' },
});

let smtp: SMTPServer;
let smtpPort: number;
const received: string[] = [];
let silent: Server;
let silentPort: number;
const held = new Set<Socket>();

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refused@')) {
        callback(
          Object.assign(new Error('No such user'), { responseCode: 550 }),
        );
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        received.push(...session.envelope.rcptTo.map((rcpt) => rcpt.address));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) =>
    smtp.listen(0, '127.0.0.1', () => resolve()),
  );
  smtpPort = (smtp.server.address() as AddressInfo).port;
  silent = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  silent.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('the SMTP transport’s thread', () => {
  it('delivers a mail, and a refusal reaches the sender with its reply code and command', async () => {
    const transport = openMailTransport({
      kind: 'smtp',
      url: `smtp://127.0.0.1:${smtpPort}`,
    });
    try {
      await transport.send(mail('someone@example.test'));
      expect(received).toContain('someone@example.test');
      const refusal = await transport.send(mail('refused@example.test')).then(
        () => undefined,
        (error: unknown) => error,
      );
      // A 5xx to RCPT TO is a refusal for good (sendFailure's rule).
      expect(sendFailure(refusal)).toEqual({
        permanent: true,
        summary: '550 RCPT TO EENVELOPE',
      });
    } finally {
      transport.close();
    }
  });

  it('fails at once a mail still waiting for the server when the transport closes', async () => {
    const transport = openMailTransport({
      kind: 'smtp',
      url: `smtp://127.0.0.1:${silentPort}`,
    });
    const sending = transport.send(mail('someone@example.test'));
    // The thread has connected and waits for a greeting that never comes.
    while (held.size === 0) await new Promise((r) => setTimeout(r, 10));
    transport.close();
    // At once, not at nodemailer's greeting timeout (10 s).
    await expect(sending).rejects.toThrow('the SMTP thread ended');
    // Stored in words, and sent again: it never reached the server whole.
    expect(sendFailure(await sending.catch((error: unknown) => error))).toEqual(
      { permanent: false, summary: 'the mail thread ended mid-send' },
    );
    await expect(transport.send(mail('later@example.test'))).rejects.toThrow(
      'the transport is closed',
    );
  });
});
