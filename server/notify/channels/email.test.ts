import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { makePki, type TestPki } from '../../../runners/fixtures/certs.ts';
import { closedPort } from '../../../runners/fixtures/context.ts';
import { type ChannelSettings, channelSettings } from '../config.ts';
import type { Message } from '../message.ts';
import { plainText } from '../text.ts';
import { email, implicitTls } from './email.ts';
import { inputOf, messageOf } from './fixtures/message.ts';
import type { SendInput } from './kind.ts';

const password = 'smtp-Pa55word-that-must-not-leak';
const to = ['ops@example.com', 'oncall@example.com'];

/** A mail as the SMTP server received it. */
type Received = { secure: boolean; servername: string | null; user: unknown; mail: Email };

/** An SMTP error reply with its code, as smtp-server sends it. */
function reply(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

test('tls: true is TLS from the start, false never, null by port (465)', () => {
  assert.equal(implicitTls(true, 2525), true);
  assert.equal(implicitTls(false, 465), false);
  assert.equal(implicitTls(null, 465), true);
  assert.equal(implicitTls(null, 587), false);
  assert.equal(implicitTls(null, 25), false);
});

describe('email channel', () => {
  let pki: TestPki;
  let leaf: { key: string; cert: string };
  const servers: SMTPServer[] = [];
  before(() => {
    pki = makePki();
    leaf = pki.leaf(30);
  });
  after(async () => {
    await Promise.all(servers.map((s) => new Promise((done) => s.close(() => done(null)))));
    pki.dispose();
  });

  /** A real SMTP server on loopback with the test CA's certificate; it keeps what it receives. */
  async function startSmtp(options: SMTPServerOptions = {}) {
    const received: Received[] = [];
    const server = new SMTPServer({
      logger: false,
      key: leaf.key,
      cert: leaf.cert,
      authOptional: true,
      disableReverseLookup: true,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          PostalMime.parse(Buffer.concat(chunks)).then((mail) => {
            received.push({
              secure: session.secure,
              servername: session.servername || null,
              user: session.user ?? null,
              mail,
            });
            callback();
          }, callback);
        });
      },
      ...options,
    });
    servers.push(server);
    // A client that refuses the certificate drops the handshake, which the server reports here.
    server.on('error', () => {});
    server.listen(0, '127.0.0.1');
    await once(server.server, 'listening');
    return { port: (server.server.address() as AddressInfo).port, received };
  }

  const send = (message: Message, settings: Partial<ChannelSettings>, extra: Partial<SendInput> = {}) =>
    email.send(
      inputOf(
        {
          name: 'ops-mail',
          kind: 'email',
          settings: channelSettings({ from: 'mon@example.com', to, allowPrivate: true, ...settings }),
        },
        message,
        { extraCa: [pki.caPem], ...extra },
      ),
    );

  test('over STARTTLS (tls unset, not port 465): both parts, every recipient, TLS verified for the name', async () => {
    const smtp = await startSmtp();
    const message = messageOf('opened');
    const result = await send(message, { smtp: `localhost:${smtp.port}` });
    assert.deepEqual(result, { ok: true, thread: '<mon.m-42-opened@example.com>' });
    assert.equal(smtp.received.length, 1);
    const { secure, servername, mail } = smtp.received[0]!;
    assert.equal(secure, true, 'upgraded with STARTTLS');
    assert.equal(servername, 'localhost', 'verified against the configured name');
    assert.equal(mail.from?.address, 'mon@example.com');
    assert.deepEqual(
      mail.to?.map((a) => a.address),
      to,
    );
    assert.equal(mail.subject, 'Incident opened: api: login down');
    assert.equal(mail.messageId, '<mon.m-42-opened@example.com>');
    assert.equal(mail.inReplyTo, undefined);
    assert.equal(mail.text?.trim(), plainText(message));
    assert.ok(mail.headers.some((h) => h.key === 'auto-submitted' && h.value === 'auto-generated'));
    const html = mail.html ?? '';
    assert.match(
      html,
      /<a href="https:\/\/mon\.example\.com\/incidents\/42"[^>]*>Incident opened: api: login down<\/a>/,
    );
    assert.match(
      html,
      /<strong>login \(api\)<\/strong> failing since 2026-11-23 14:05 UTC: connection refused/,
    );
    assert.match(html, /Likely cause: deploy v42 of api/);
    assert.doesNotMatch(html, /<img/);
  });

  test('with TLS from the start (tls: true) on any port', async () => {
    const smtp = await startSmtp({ secure: true });
    const result = await send(messageOf('opened'), { smtp: `localhost:${smtp.port}`, tls: true });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(smtp.received[0]!.secure, true);
  });

  test('tls: false talks plain text to a server without STARTTLS, and upgrades when it is offered', async () => {
    const plain = await startSmtp({ hideSTARTTLS: true });
    assert.equal((await send(messageOf('opened'), { smtp: `localhost:${plain.port}`, tls: false })).ok, true);
    assert.equal(plain.received[0]!.secure, false);
    const offered = await startSmtp();
    assert.equal(
      (await send(messageOf('opened'), { smtp: `localhost:${offered.port}`, tls: false })).ok,
      true,
    );
    assert.equal(offered.received[0]!.secure, true);
  });

  test('a certificate no trusted CA signed is refused, over STARTTLS and TLS alike, and retried', async () => {
    const starttls = await startSmtp();
    const implicit = await startSmtp({ secure: true });
    for (const [port, tls] of [
      [starttls.port, null],
      [implicit.port, true],
    ] as const) {
      const result = await send(messageOf('opened'), { smtp: `localhost:${port}`, tls }, { extraCa: [] });
      assert.ok(!result.ok && !result.permanent, JSON.stringify(result));
      assert.match(result.ok ? '' : result.error, /certificate/);
    }
    assert.equal(starttls.received.length + implicit.received.length, 0);
  });

  test('signs in with the username and the secret; a refused sign-in (535) is permanent and never quotes it', async () => {
    const smtp = await startSmtp({
      authOptional: false,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mon' && auth.password === password) return callback(null, { user: 'mon' });
        callback(reply(535, '5.7.8 Authentication credentials invalid'));
      },
    });
    const server = `localhost:${smtp.port}`;
    const ok = await send(messageOf('opened'), { smtp: server, username: 'mon', secret: password });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.equal(smtp.received[0]!.user, 'mon');

    const refused = await send(messageOf('opened'), {
      smtp: server,
      username: 'mon',
      secret: `${password}x`,
    });
    assert.deepEqual(refused, {
      ok: false,
      permanent: true,
      error: 'SMTP server answered 535: 5.7.8 Authentication credentials invalid',
    });
    assert.equal(smtp.received.length, 1);
  });

  test('a password goes only over TLS: a server without STARTTLS gets no AUTH, and the error is permanent', async () => {
    const signIns: unknown[] = [];
    // A server that would take a sign-in in plain text, as one a man in the middle stripped would.
    const plain = await startSmtp({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: false,
      onAuth(auth, _session, callback) {
        signIns.push(auth.password);
        callback(null, { user: 'mon' });
      },
    });
    for (const tls of [false, null]) {
      const result = await send(messageOf('opened'), {
        smtp: `localhost:${plain.port}`,
        tls,
        username: 'mon',
        secret: password,
      });
      assert.ok(!result.ok && result.permanent, JSON.stringify(result));
      assert.match(
        result.ok ? '' : result.error,
        /^the SMTP server refused STARTTLS \(5\d\d\); mon sends the password only over TLS$/,
      );
    }
    assert.deepEqual(signIns, [], 'the password was never sent');
    assert.equal(plain.received.length, 0);
  });

  test('a subject in other scripts arrives whole, on one line', async () => {
    const smtp = await startSmtp();
    const message = messageOf('opened');
    message.incident.title = 'Zürich: база данных недоступна 🚨\nsecond line';
    assert.equal((await send(message, { smtp: `localhost:${smtp.port}` })).ok, true);
    assert.equal(
      smtp.received[0]!.mail.subject,
      'Incident opened: Zürich: база данных недоступна 🚨 second line',
    );
  });

  test('later changes answer the opening: In-Reply-To and References name its Message-ID', async () => {
    const smtp = await startSmtp();
    const server = `localhost:${smtp.port}`;
    const opened = await send(messageOf('opened'), { smtp: server });
    assert.ok(opened.ok && opened.thread);
    assert.deepEqual(await send(messageOf('resolved'), { smtp: server }, { thread: opened.thread }), {
      ok: true,
    });
    const resolved = smtp.received[1]!.mail;
    assert.equal(resolved.subject, 'Resolved: api: login down');
    assert.equal(resolved.inReplyTo, opened.thread);
    assert.equal(resolved.references, opened.thread);
    assert.notEqual(resolved.messageId, opened.thread);
    assert.match(resolved.text ?? '', /Resolved at 2026-11-23 14:30 UTC after 25 min/);
  });

  test('markup in a check name is escaped in the HTML part', async () => {
    const smtp = await startSmtp();
    const message = messageOf('opened');
    message.failing[0]!.name = '<script>alert(1)</script>';
    message.incident.title = 'a & b "quoted"';
    assert.equal((await send(message, { smtp: `localhost:${smtp.port}` })).ok, true);
    const { html, text, subject } = smtp.received[0]!.mail;
    assert.doesNotMatch(html ?? '', /<script>/);
    assert.match(html ?? '', /<strong>&lt;script&gt;alert\(1\)&lt;\/script&gt; \(api\)<\/strong>/);
    assert.match(html ?? '', />Incident opened: a &amp; b &quot;quoted&quot;<\/a>/);
    assert.match(text ?? '', /- <script>alert\(1\)<\/script> \(api\) failing/);
    assert.equal(subject, 'Incident opened: a & b "quoted"');
  });

  test('a 5xx reply (unknown recipient) is permanent, a 4xx reply is retried', async () => {
    const smtp = await startSmtp({
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('nobody@'))
          return callback(reply(550, '5.1.1 <nobody@example.com>: no such user'));
        callback();
      },
    });
    const server = `localhost:${smtp.port}`;
    assert.deepEqual(await send(messageOf('opened'), { smtp: server, to: ['nobody@example.com'] }), {
      ok: false,
      permanent: true,
      error: 'SMTP server answered 550: 5.1.1 <nobody@example.com>: no such user',
    });
    const some = await send(messageOf('opened'), {
      smtp: server,
      to: ['ops@example.com', 'nobody@example.com'],
    });
    assert.deepEqual(some, {
      ok: false,
      permanent: true,
      error:
        'refused nobody@example.com (SMTP server answered 550: 5.1.1 <nobody@example.com>: no such user); sent to the others',
    });
    assert.equal(smtp.received.length, 1, 'the accepted recipient has it');

    const busy = await startSmtp({
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback(reply(451, '4.3.0 Try again later')));
      },
    });
    assert.deepEqual(await send(messageOf('opened'), { smtp: `localhost:${busy.port}` }), {
      ok: false,
      permanent: false,
      error: 'SMTP server answered 451: 4.3.0 Try again later',
    });
  });

  test('a refused connection is retried; a private address without allowPrivate is refused', async () => {
    const closed = await send(messageOf('opened'), { smtp: `localhost:${await closedPort()}` });
    assert.ok(!closed.ok && !closed.permanent && /ECONNREFUSED/.test(closed.error), JSON.stringify(closed));

    const smtp = await startSmtp();
    const refused = await send(messageOf('opened'), { smtp: `localhost:${smtp.port}`, allowPrivate: false });
    assert.ok(!refused.ok && refused.permanent && /refused localhost \(127\.0\.0\.1\)/.test(refused.error));
    assert.equal(smtp.received.length, 0);
  });

  /** A server that greets, then answers EHLO a byte every 250 ms, never finishing: no stage is ever idle. */
  async function startTrickle() {
    const closed: Promise<void>[] = [];
    const server = createServer((socket) => {
      closed.push(once(socket, 'close').then(() => {}));
      let timer: NodeJS.Timeout | undefined;
      socket.on('error', () => {});
      socket.on('close', () => clearInterval(timer));
      socket.write('220 slow.example ESMTP\r\n');
      socket.once('data', () => {
        socket.write('250-');
        timer = setInterval(() => socket.write('x'), 250);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      port: (server.address() as AddressInfo).port,
      closed,
      close: () => new Promise((done) => server.close(done)),
    };
  }

  test('a server that trickles its replies is cut off at the deadline, or when mon stops; the connection closes', {
    timeout: 15_000,
  }, async () => {
    const slow = await startTrickle();
    const started = performance.now();
    const late = await send(
      messageOf('opened'),
      { smtp: `localhost:${slow.port}` },
      { smtpDeadlineMs: 1000 },
    );
    const took = performance.now() - started;
    assert.deepEqual(late, {
      ok: false,
      permanent: false,
      error: 'the SMTP exchange did not finish within 1 s',
    });
    // Node's timers count from the event loop's cached time, in whole ms: one can end a little before a
    // second by performance.now(), more so on a busy machine.
    assert.ok(took >= 900 && took < 4000, `took ${took} ms`);
    await slow.closed[0];

    const stopping = new AbortController();
    setTimeout(() => stopping.abort(new Error('mon is stopping')), 500);
    const stopped = await send(
      messageOf('opened'),
      { smtp: `localhost:${slow.port}` },
      { signal: stopping.signal },
    );
    assert.ok(!stopped.ok && !/within/.test(stopped.error), JSON.stringify(stopped));
    assert.ok(performance.now() - started < 6000);
    await slow.closed[1];
    await slow.close();
  });

  test('the test message starts no thread; a channel without a server fails without connecting', async () => {
    const smtp = await startSmtp();
    assert.deepEqual(await send(messageOf('test'), { smtp: `localhost:${smtp.port}` }), { ok: true });
    assert.equal(smtp.received[0]!.mail.subject, 'mon test message');
    assert.deepEqual(await send(messageOf('opened'), { smtp: null }), {
      ok: false,
      permanent: true,
      error: 'no SMTP server, sender or recipients',
    });
  });
});
