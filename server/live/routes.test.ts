import assert from 'node:assert/strict';
import { get, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text as readText } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { type AuthTestServer, authTestServer } from '../auth/test-helpers.ts';
import { FakeClock } from '../clock.ts';

/** Real callers: a viewer's session cookie and API tokens, so the real access hook decides. */
const callers: Record<string, Record<string, string>> = { nobody: {} };

type Opened = { res: IncomingMessage; text: () => string; close: () => void };

let server: AuthTestServer;
let clock: FakeClock;
let base: string;

before(async () => {
  clock = new FakeClock();
  server = await authTestServer({ clock });
  const viewer = await server.addUser('v@example.com', 'viewer');
  callers.viewer = { cookie: await server.cookieOf(viewer) };
  callers.read = { authorization: `Bearer ${await server.tokenOf('read')}` };
  callers.deploy = { authorization: `Bearer ${await server.tokenOf('deploy')}` };
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await server.dispose();
});

function open(who = 'viewer', headers: Record<string, string> = callers[who] ?? {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = get(`${base}/api/v1/stream`, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('error', () => {});
      resolve({ res, text: () => body, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

/** Waits (bounded) until the stream's text satisfies `ok`. */
async function until(stream: Opened, ok: (text: string) => boolean): Promise<string> {
  for (let i = 0; i < 200; i++) {
    if (ok(stream.text())) return stream.text();
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`stream text never matched: ${JSON.stringify(stream.text())}`);
}

/** Lets bytes in flight arrive, then returns what the stream has received. */
async function quiet(stream: Opened): Promise<string> {
  await new Promise((r) => setTimeout(r, 30));
  return stream.text();
}

describe('GET /api/v1/stream', () => {
  test('sends invalidate events as data lines', async () => {
    const stream = await open();
    try {
      assert.equal(stream.res.statusCode, 200);
      assert.match(String(stream.res.headers['content-type']), /^text\/event-stream/);
      assert.equal(stream.res.headers['cache-control'], 'no-store');
      assert.equal(stream.res.headers['x-content-type-options'], 'nosniff');
      assert.equal(stream.res.headers['referrer-policy'], 'same-origin');
      server.deps.bus.publish('service:web', 'overview');
      await clock.advance(0);
      const text = await until(stream, (t) => t.includes('\n\n'));
      assert.equal(text, 'data: {"invalidate":["service:web","overview"]}\n\n');
    } finally {
      stream.close();
    }
  });

  test('coalesces keys into at most one event per 500 ms', async () => {
    const stream = await open();
    try {
      server.deps.bus.publish('incidents');
      await clock.advance(0);
      await until(stream, (t) => t.split('\n\n').length === 2);
      await clock.advance(100);
      server.deps.bus.publish('service:a');
      await clock.advance(100);
      server.deps.bus.publish('service:b', 'service:a');
      server.deps.bus.publish('overview');
      await clock.advance(299);
      assert.equal(await quiet(stream), 'data: {"invalidate":["incidents"]}\n\n');
      await clock.advance(1);
      const text = await until(stream, (t) => t.split('\n\n').length === 3);
      assert.equal(
        text,
        'data: {"invalidate":["incidents"]}\n\ndata: {"invalidate":["service:a","service:b","overview"]}\n\n',
      );
      // `*` stands for everything: other keys collected with it are dropped.
      await clock.advance(1000);
      server.deps.bus.publish('drafts');
      server.deps.bus.publish('*');
      server.deps.bus.publish('incident:0123456789abcdef');
      await clock.advance(0);
      const last = await until(stream, (t) => t.split('\n\n').length === 4);
      assert.ok(last.endsWith('data: {"invalidate":["*"]}\n\n'));
    } finally {
      stream.close();
    }
  });

  test('sends `analytics` at most once per 10 s, holding no other key; `*` stands for it', async () => {
    const stream = await open();
    const events = (t: string) => t.split('\n\n').length - 1;
    try {
      // Just opened: its client has just read what it shows, so analytics waits for the 10 s mark.
      server.deps.bus.publish('analytics', 'overview');
      await clock.advance(0);
      await until(stream, (t) => events(t) === 1);
      await clock.advance(9_999);
      assert.equal(await quiet(stream), 'data: {"invalidate":["overview"]}\n\n');
      await clock.advance(1);
      await until(stream, (t) => events(t) === 2);
      assert.ok(stream.text().endsWith('data: {"invalidate":["analytics"]}\n\n'));
      // `*` at 15 s reloads analytics too: the next one waits until 25 s, other keys do not.
      await clock.advance(5_000);
      server.deps.bus.publish('analytics');
      server.deps.bus.publish('*');
      await clock.advance(0);
      await until(stream, (t) => events(t) === 3);
      await clock.advance(1_000);
      server.deps.bus.publish('analytics');
      server.deps.bus.publish('incidents');
      await clock.advance(8_999);
      await until(stream, (t) => events(t) === 4);
      assert.ok(
        (await quiet(stream)).endsWith(
          'data: {"invalidate":["*"]}\n\ndata: {"invalidate":["incidents"]}\n\n',
        ),
      );
      await clock.advance(1);
      await until(stream, (t) => events(t) === 5);
      assert.ok(stream.text().endsWith('data: {"invalidate":["analytics"]}\n\n'));
    } finally {
      stream.close();
    }
  });

  test('sends a ping comment after 25 idle seconds', async () => {
    const stream = await open();
    try {
      await clock.advance(24_999);
      assert.equal(await quiet(stream), '');
      await clock.advance(1);
      assert.equal(await until(stream, (t) => t.length > 0), ': ping\n\n');
      // An event restarts the idle time.
      await clock.advance(10_000);
      server.deps.bus.publish('overview');
      await clock.advance(0);
      await until(stream, (t) => t.includes('data:'));
      await clock.advance(24_999);
      assert.equal(await quiet(stream), ': ping\n\ndata: {"invalidate":["overview"]}\n\n');
      await clock.advance(1);
      await until(stream, (t) => t.endsWith('data: {"invalidate":["overview"]}\n\n: ping\n\n'));
    } finally {
      stream.close();
    }
  });

  test('needs read access', async () => {
    const anonymous = await open('nobody');
    assert.equal(anonymous.res.statusCode, 401);
    anonymous.close();
    const deploy = await open('deploy');
    assert.equal(deploy.res.statusCode, 403);
    assert.match(String(deploy.res.headers['content-type']), /^application\/problem\+json/);
    deploy.close();
    const token = await open('read');
    assert.equal(token.res.statusCode, 200);
    token.close();
  });

  test('refuses the 65th stream with 503 and Retry-After', async () => {
    const streams: Opened[] = [];
    // Eight sessions of eight streams each: no caller is over its own share.
    const viewer = await server.addUser('many@example.com', 'viewer');
    const sessions: Record<string, string>[] = [];
    for (let i = 0; i < 8; i++) sessions.push({ cookie: await server.cookieOf(viewer) });
    const other = { cookie: await server.cookieOf(viewer) };
    try {
      for (let i = 0; i < 64; i++) streams.push(await open('viewer', sessions[i % 8]));
      assert.ok(streams.every((s) => s.res.statusCode === 200));
      const refused = await open('viewer', other);
      assert.equal(refused.res.statusCode, 503);
      assert.equal(refused.res.headers['retry-after'], '5');
      assert.match(String(refused.res.headers['content-type']), /^application\/problem\+json/);
      const body = JSON.parse(await until(refused, (t) => t.endsWith('}')));
      assert.equal(body.status, 503);
      assert.match(body.detail, /at most 64 live update streams/);
      refused.close();
      // A closed stream frees its place.
      streams.pop()?.close();
      let reopened: Opened | undefined;
      for (let i = 0; i < 100 && reopened?.res.statusCode !== 200; i++) {
        reopened?.close();
        await new Promise((r) => setTimeout(r, 10));
        reopened = await open('viewer', other);
      }
      assert.equal(reopened?.res.statusCode, 200);
      streams.push(reopened!);
    } finally {
      for (const s of streams) s.close();
    }
  });
});

test('one session or token holds at most 8 streams: the 9th answers 429 with Retry-After', async () => {
  const own = await authTestServer();
  await own.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(own.app.server.address() as AddressInfo).port}/api/v1/stream`;
  const viewer = await own.addUser('tabs@example.com', 'viewer');
  const session = { cookie: await own.cookieOf(viewer) };
  const token = { authorization: `Bearer ${await own.tokenOf('read')}` };
  const opened: IncomingMessage[] = [];
  const openWith = async (headers: Record<string, string>) => {
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      get(url, { headers }, resolve).on('error', reject),
    );
    opened.push(res);
    return res;
  };
  const bodyOf = (res: IncomingMessage) => readText(res);
  try {
    for (let i = 0; i < 8; i++) assert.equal((await openWith(session)).statusCode, 200);
    const ninth = await openWith(session);
    assert.equal(ninth.statusCode, 429);
    assert.equal(ninth.headers['retry-after'], '5');
    assert.match(String(ninth.headers['content-type']), /^application\/problem\+json/);
    const problem = JSON.parse(await bodyOf(ninth));
    assert.equal(problem.status, 429);
    assert.match(problem.detail, /at most 8 live update streams/);
    // Another session of the same person, and a token, have shares of their own.
    assert.equal((await openWith({ cookie: await own.cookieOf(viewer) })).statusCode, 200);
    for (let i = 0; i < 8; i++) assert.equal((await openWith(token)).statusCode, 200);
    assert.equal((await openWith(token)).statusCode, 429);
    // A closed stream gives its place back to its owner.
    opened[0]!.destroy();
    let again = 0;
    for (let i = 0; i < 100 && again !== 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      again = (await openWith(session)).statusCode ?? 0;
    }
    assert.equal(again, 200);
  } finally {
    for (const res of opened) res.destroy();
    await own.dispose();
  }
});

test('closing the server ends open streams', async () => {
  const own = await authTestServer();
  const headers = { authorization: `Bearer ${await own.tokenOf('read')}` };
  await own.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (own.app.server.address() as AddressInfo).port;
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`http://127.0.0.1:${port}/api/v1/stream`, { headers }, resolve).on('error', reject),
  );
  assert.equal(res.statusCode, 200);
  const ended = new Promise<void>((resolve) => {
    res.on('end', resolve);
    res.on('close', resolve);
    res.resume();
  });
  await own.dispose();
  await ended;
});

test('a stream ends when its session ends or its token is revoked; HEAD holds no stream', async () => {
  const own = await authTestServer();
  await own.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(own.app.server.address() as AddressInfo).port}/api/v1/stream`;
  const viewer = await own.addUser('gone@example.com', 'viewer');
  const cookie = await own.cookieOf(viewer);
  const token = await own.tokenOf('read');
  const openWith = (headers: Record<string, string>) =>
    new Promise<IncomingMessage>((resolve, reject) => get(url, { headers }, resolve).on('error', reject));
  const ended = (res: IncomingMessage) => readText(res);

  const bySession = await openWith({ cookie });
  const byToken = await openWith({ authorization: `Bearer ${token}` });
  assert.equal(bySession.statusCode, 200);
  assert.equal(byToken.statusCode, 200);
  const sessionText = ended(bySession);
  const tokenText = ended(byToken);
  const logout = await own.app.inject({
    method: 'POST',
    url: '/api/v1/auth/logout',
    headers: { cookie, origin: 'http://localhost' },
  });
  assert.equal(logout.statusCode, 204);
  const tokenId = (own.deps.store.read.prepare('SELECT id FROM tokens').get() as { id: string }).id;
  await own.deps.store.writer.run((db) => db.prepare('DELETE FROM tokens WHERE id = ?').run(tokenId));
  own.deps.bus.publish('overview');
  // Both streams are closed instead of being told about the change.
  assert.doesNotMatch(await sessionText, /invalidate/);
  assert.doesNotMatch(await tokenText, /invalidate/);

  const headToken = await own.tokenOf('read');
  const head = await new Promise<IncomingMessage>((resolve, reject) =>
    request(url, { method: 'HEAD', headers: { authorization: `Bearer ${headToken}` } }, resolve)
      .on('error', reject)
      .end(),
  );
  assert.equal(head.statusCode, 404);
  await own.dispose();
});
