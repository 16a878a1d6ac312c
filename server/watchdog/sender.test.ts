import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { outboundRequest } from '../http/outbound.ts';
import { memoryLog } from '../testing.ts';
import { outcomeOfError } from './sender.ts';
import { quietSpell, T0, watchdogServer } from './testkit.ts';

/**
 * The watchdog's requests against real HTTP receivers on loopback (hence `allowPrivate: true`), on a
 * fake clock: sent at once on PUT, then every minute; outcomes stored as they come back.
 */

const MIN = 60_000;

test('PUT /watchdog/edge sends a POST with the bearer token at once, then one every minute', async (t) => {
  const edge = await startReceiver();
  const { server, clock, inject, readUntil } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await edge.close();
  });

  const put = await inject('PUT', '/watchdog/edge', {
    url: `${edge.url}/beat`,
    token: 'edge-token-1',
    allowPrivate: true,
  });
  assert.equal(put.status, 204, put.text);
  await edge.arrived(1);
  const first = edge.received[0]!;
  assert.equal(first.method, 'POST');
  assert.equal(first.url, '/beat');
  assert.equal(first.headers.authorization, 'Bearer edge-token-1');
  assert.equal(first.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(first.body), { service: 'mon', ts: T0, url: null });
  const read = await readUntil('the first request stored', (r) => r.edge?.lastSentAt === T0);
  assert.deepEqual(read.edge, {
    address: `${edge.url}/beat`,
    managed: false,
    allowPrivate: true,
    lastSentAt: T0,
    lastError: null,
    lastErrorAt: null,
  });
  assert.equal(read.heartbeat, null);
  assert.equal(read.everyMs, MIN);

  await clock.advance(MIN - 1000);
  await quietSpell();
  assert.equal(edge.received.length, 1, 'nothing before the minute is up');
  await clock.advance(1000);
  await edge.arrived(2);
  assert.deepEqual(JSON.parse(edge.received[1]!.body), { service: 'mon', ts: T0 + MIN, url: null });
  await readUntil('the second request stored', (r) => r.edge?.lastSentAt === T0 + MIN);
  await clock.advance(MIN);
  await edge.arrived(3);
});

test('lastError is set by a 500 and a refused connection, stays until a 200, which clears it', async (t) => {
  const ping = await startReceiver();
  const { server, clock, inject, readUntil } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await ping.close();
  });

  ping.answer = () => ({ status: 500, body: 'database is down' });
  assert.equal(
    (await inject('PUT', '/watchdog/heartbeat-url', { url: `${ping.url}/ping/abc`, allowPrivate: true }))
      .status,
    204,
  );
  await ping.arrived(1);
  assert.equal(ping.received[0]!.method, 'GET');
  let read = await readUntil('the 500 stored', (r) => r.heartbeat?.lastErrorAt === T0);
  assert.equal(read.heartbeat?.lastError, 'the heartbeat URL answered 500: database is down');
  assert.equal(read.heartbeat?.lastSentAt, null);

  // Still failing a minute later: the error is the newest one, nothing was sent.
  ping.answer = () => ({ status: 503, body: '' });
  await clock.advance(MIN);
  read = await readUntil('the 503 stored', (r) => r.heartbeat?.lastErrorAt === T0 + MIN);
  assert.equal(read.heartbeat?.lastError, 'the heartbeat URL answered 503');

  ping.answer = () => ({ status: 200 });
  await clock.advance(MIN);
  read = await readUntil('the 200 stored', (r) => r.heartbeat?.lastSentAt === T0 + 2 * MIN);
  assert.equal(read.heartbeat?.lastError, null);
  assert.equal(read.heartbeat?.lastErrorAt, null);

  // A receiver that is gone: the connection is refused, and the last success stays as it was.
  await ping.close();
  await clock.advance(MIN);
  read = await readUntil('the refused connection stored', (r) => r.heartbeat?.lastErrorAt === T0 + 3 * MIN);
  assert.match(read.heartbeat?.lastError ?? '', /ECONNREFUSED/);
  assert.equal(read.heartbeat?.lastSentAt, T0 + 2 * MIN);
});

test('token: null keeps the stored token on the same host; a new host, or none stored, needs one', async (t) => {
  const [edge, other] = await Promise.all([startReceiver(), startReceiver()]);
  const { server, inject, read } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await Promise.all([edge.close(), other.close()]);
  });

  const none = await inject('PUT', '/watchdog/edge', {
    url: `${edge.url}/a`,
    token: null,
    allowPrivate: true,
  });
  assert.equal(none.status, 422);
  assert.equal(none.json().detail, 'token: required');
  assert.equal((await read()).edge, null);

  await inject('PUT', '/watchdog/edge', { url: `${edge.url}/a`, token: 'first-token', allowPrivate: true });
  await edge.arrived(1);
  const kept = await inject('PUT', '/watchdog/edge', {
    url: `${edge.url}/b`,
    token: null,
    allowPrivate: true,
  });
  assert.equal(kept.status, 204, kept.text);
  await edge.arrived(2);
  assert.equal(edge.received[1]!.url, '/b');
  assert.equal(edge.received[1]!.headers.authorization, 'Bearer first-token');
  // An absent token is the same as null.
  assert.equal(
    (await inject('PUT', '/watchdog/edge', { url: `${edge.url}/c`, allowPrivate: true })).status,
    204,
  );
  await edge.arrived(3);
  assert.equal(edge.received[2]!.headers.authorization, 'Bearer first-token');

  // Sending the stored token to another host takes knowing it.
  const moved = await inject('PUT', '/watchdog/edge', {
    url: `${other.url}/a`,
    token: null,
    allowPrivate: true,
  });
  assert.equal(moved.status, 422);
  assert.equal(moved.json().detail, 'token: required when the URL moves to another host');
  assert.equal((await read()).edge?.address, `${edge.url}/c`);
  await quietSpell();
  assert.equal(other.received.length, 0);

  await inject('PUT', '/watchdog/edge', { url: `${other.url}/a`, token: 'second-token', allowPrivate: true });
  await other.arrived(1);
  assert.equal(other.received[0]!.headers.authorization, 'Bearer second-token');
});

test('DELETE stops the requests and empties the read; deleting nothing is no error', async (t) => {
  const ping = await startReceiver();
  const { server, clock, inject, read, readUntil } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await ping.close();
  });

  await inject('PUT', '/watchdog/heartbeat-url', { url: `${ping.url}/ping/x`, allowPrivate: true });
  await ping.arrived(1);
  await readUntil('the first request stored', (r) => r.heartbeat?.lastSentAt === T0);
  assert.equal((await inject('DELETE', '/watchdog/heartbeat-url')).status, 204);
  assert.deepEqual(await read(), { edge: null, heartbeat: null, everyMs: MIN });
  await clock.advance(5 * MIN);
  await quietSpell();
  assert.equal(ping.received.length, 1);
  assert.equal((await inject('DELETE', '/watchdog/heartbeat-url')).status, 204);
  assert.equal((await inject('DELETE', '/watchdog/edge')).status, 204);

  // Set again: a new start, sent at once.
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${ping.url}/ping/y`, allowPrivate: true });
  await ping.arrived(2);
  assert.equal(ping.received[1]!.url, '/ping/y');
});

test('a request to a target that was replaced meanwhile leaves no outcome on the new one', async (t) => {
  const [old, next] = await Promise.all([startReceiver(), startReceiver()]);
  const { server, inject, read, readUntil } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await Promise.all([old.close(), next.close()]);
  });

  old.answer = () => ({ status: 500, body: 'old target broken' });
  old.hold();
  const releaseNext = next.hold();
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${old.url}/ping/old`, allowPrivate: true });
  await old.arrived(1);
  // The old request is still waiting for its answer when the target moves: it is given up, unstored.
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${next.url}/ping/new`, allowPrivate: true });
  await next.arrived(1);
  await quietSpell();
  assert.deepEqual((await read()).heartbeat, {
    address: next.host,
    managed: false,
    allowPrivate: true,
    lastSentAt: null,
    lastError: null,
    lastErrorAt: null,
  });
  releaseNext();
  await readUntil('the success of the new target stored', (r) => r.heartbeat?.lastSentAt === T0);
});

test('private addresses and plain http:// need allowPrivate; a name that resolves to loopback is refused when sent', async (t) => {
  const ping = await startReceiver();
  const { server, inject, readUntil } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await ping.close();
  });

  const literal = await inject('PUT', '/watchdog/heartbeat-url', { url: `https://${ping.host}/ping` });
  assert.equal(literal.status, 422);
  assert.equal(literal.json().detail, 'url: 127.0.0.1 is a loopback address: set allowPrivate to reach it');
  const plain = await inject('PUT', '/watchdog/heartbeat-url', { url: 'http://hc.example.com/ping/1' });
  assert.equal(plain.status, 422);
  assert.equal(
    plain.json().detail,
    'url: must be https:// (plain http:// only with allowPrivate, for a box on your own network)',
  );
  const v6 = await inject('PUT', '/watchdog/edge', { url: 'https://[fd00::1]/x', token: 'tok-1' });
  assert.equal(v6.json().detail, 'url: fd00::1 is a private address: set allowPrivate to reach it');

  // localhost passes the URL's rules; its address is refused by the request itself.
  const port = ping.host.split(':')[1];
  assert.equal(
    (await inject('PUT', '/watchdog/heartbeat-url', { url: `https://localhost:${port}/ping` })).status,
    204,
  );
  const read = await readUntil('the refusal stored', (r) => r.heartbeat?.lastError !== null);
  assert.match(
    read.heartbeat?.lastError ?? '',
    /^refused localhost \(.+\): a loopback address; allowPrivate/,
  );
  assert.equal(read.heartbeat?.lastSentAt, null);
  assert.equal(ping.received.length, 0);
});

test('no token and no secret path in the read, the errors or the log, even when a receiver repeats them', async (t) => {
  const edge = await startReceiver();
  const ping = await startReceiver();
  const memory = memoryLog();
  const { server, inject, read, readUntil } = await watchdogServer({ log: memory.log });
  t.after(async () => {
    await server.dispose();
    await Promise.all([edge.close(), ping.close()]);
  });
  const token = 'edge-secret-f00dfeed';
  const secretPath = '/ping/9f3c2b1a-secret-uuid';

  edge.answer = (r) => ({ status: 401, body: `bad token in ${r.headers.authorization}` });
  ping.answer = (r) => ({ status: 404, body: `no check at ${r.url}` });
  await inject('PUT', '/watchdog/edge', {
    url: `${edge.url}/in?key=query-secret`,
    token,
    allowPrivate: true,
  });
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${ping.url}${secretPath}`, allowPrivate: true });
  await Promise.all([edge.arrived(1), ping.arrived(1)]);
  assert.equal(edge.received[0]!.url, '/in?key=query-secret');
  assert.equal(ping.received[0]!.url, secretPath);
  const shown = await readUntil('both errors stored', (r) => !!r.edge?.lastError && !!r.heartbeat?.lastError);

  assert.equal(shown.heartbeat?.address, ping.host);
  assert.equal(shown.edge?.address, `${edge.url}/in`);
  assert.equal(shown.edge?.lastError, 'the edge answered 401: bad token in Bearer [secret]');
  assert.equal(shown.heartbeat?.lastError, 'the heartbeat URL answered 404: no check at [secret]');
  const everything = JSON.stringify(await read()) + memory.text();
  for (const secret of [token, 'query-secret', secretPath, '9f3c2b1a']) {
    assert.ok(!everything.includes(secret), `${secret} leaked`);
  }
  // The failures are logged once each, by target and address.
  const warnings = memory.lines().filter((l) => l.message === 'a watchdog request failed');
  assert.deepEqual(warnings.map((l) => `${l.target} ${l.address}`).sort(), [
    `edge ${edge.url}/in`,
    `heartbeat ${ping.host}`,
  ]);
});

test('a restart sends at once to the stored targets and keeps their state', async (t) => {
  const ping = await startReceiver();
  const first = await watchdogServer();
  t.after(() => ping.close());
  await first.inject('PUT', '/watchdog/heartbeat-url', { url: `${ping.url}/ping/r`, allowPrivate: true });
  await first.readUntil('the first request stored', (r) => r.heartbeat?.lastSentAt === T0);
  await first.server.close();

  const { FakeClock } = await import('../clock.ts');
  const second = await watchdogServer({ dataDir: first.server.dataDir, clock: new FakeClock(T0 + 10 * MIN) });
  t.after(() => second.server.dispose());
  assert.equal((await second.read()).heartbeat?.lastSentAt, T0);
  await ping.arrived(2);
  await second.readUntil('the request at start stored', (r) => r.heartbeat?.lastSentAt === T0 + 10 * MIN);
});

test('stopping the server aborts a request that gets no answer', async (t) => {
  // A receiver that takes requests and never answers.
  const silent = await startReceiver();
  silent.answer = () => new Promise(() => {});
  t.after(() => silent.close());
  const { server, inject } = await watchdogServer();
  await inject('PUT', '/watchdog/heartbeat-url', { url: `${silent.url}/`, allowPrivate: true });
  const started = Date.now();
  await server.dispose();
  assert.ok(Date.now() - started < 5000, 'the stop did not wait for the 10 s request timeout');
});

test('a request that runs out of time is stored as no answer within 10 s', async (t) => {
  const { createServer } = await import('node:http');
  // A receiver that takes requests and never answers.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const { port } = silent.address() as import('node:net').AddressInfo;
  // The error outboundRequest raises when its time runs out (50 ms here instead of the sender's 10 s).
  const timedOut = await outboundRequest({
    url: `http://127.0.0.1:${port}/`,
    method: 'GET',
    allowPrivate: true,
    timeoutMs: 50,
  }).then(
    () => assert.fail('the silent receiver answered'),
    (error: unknown) => error,
  );
  assert.deepEqual(outcomeOfError(timedOut), { ok: false, error: 'no answer within 10 s' });
});
