import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { memoryLog } from '../testing.ts';
import { REFUSED_TOKENS_BURST } from './agent-auth.ts';
import { hostServer, sample, T0 } from './testkit.ts';

type Kit = Awaited<ReturnType<typeof hostServer>>;

/** An agent request from `address`: frames (one sample) or a poll, with `token`. */
async function agentRequest(kit: Kit, route: 'frames' | 'poll', token: string, address: string) {
  const res = await kit.server.app.inject({
    remoteAddress: address,
    ...(route === 'frames'
      ? {
          method: 'POST',
          url: '/agent/v1/frames',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-encoding': 'gzip',
          },
          payload: gzipSync(JSON.stringify({ frames: [sample(T0)] })),
        }
      : {
          method: 'GET',
          url: '/agent/v1/poll?assignment=&version=0.1.0&protocol=1&capabilities=ping,headers',
          headers: { authorization: `Bearer ${token}` },
        }),
  });
  return { status: res.statusCode, headers: res.headers, body: res.json() as { detail?: string } };
}

test('300 requests with host tokens that name no host write four lines; beyond 30 the address gets 429 with Retry-After', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const flood = '203.0.113.7';

  const statuses: number[] = [];
  let limited: Awaited<ReturnType<typeof agentRequest>> | null = null;
  for (let i = 0; i < 300; i++) {
    const res = await agentRequest(kit, i % 2 === 0 ? 'frames' : 'poll', `bth_guess-${i}`, flood);
    statuses.push(res.status);
    if (res.status === 429) limited ??= res;
  }
  assert.deepEqual(statuses, [
    ...new Array(REFUSED_TOKENS_BURST).fill(401),
    ...new Array(300 - REFUSED_TOKENS_BURST).fill(429),
  ]);
  assert.equal(limited?.headers['retry-after'], '1');
  assert.match(String(limited?.headers['content-type']), /application\/problem\+json/);
  assert.match(limited?.body.detail ?? '', /host token that names no host from this address/);
  // Refused before the token is looked at: a valid token from that address waits too.
  assert.equal((await agentRequest(kit, 'poll', token, flood)).status, 429);
  // Only that address: the host's agent elsewhere goes on.
  assert.equal((await agentRequest(kit, 'frames', token, '198.51.100.2')).status, 200);
  assert.match(
    await kit.server.deps.metrics.text(),
    /mon_ingest_rejected_total\{reason="rate_limited"\} 135/,
  );

  // A token a second comes back: one more refused token, then 429 again.
  await kit.clock.advance(1_000);
  assert.equal((await agentRequest(kit, 'poll', 'bth_guess-again', flood)).status, 401);
  assert.equal((await agentRequest(kit, 'poll', 'bth_guess-again', flood)).status, 429);

  const lines = () => memory.lines().filter((l) => l.security && l.address === flood);
  assert.deepEqual(
    lines().map((l) => [l.security, l.count]),
    [
      ['host.rejected', 1],
      ['rate.limited', 1],
    ],
    'a line at the first of each, the rest counted',
  );
  await kit.clock.advance(59_000);
  assert.deepEqual(
    lines().map((l) => [l.security, l.count, l.route]),
    [
      ['host.rejected', 1, '/agent/v1/frames'],
      ['rate.limited', 1, '/agent/v1/frames'],
      ['host.rejected', REFUSED_TOKENS_BURST, '/agent/v1/poll'],
      ['rate.limited', 300 - REFUSED_TOKENS_BURST + 1, '/agent/v1/poll'],
    ],
    'a minute after the first, how many came since: every refusal counted, in four lines',
  );
  assert.ok(!memory.text().includes('bth_guess'), 'no token in the log');

  // A quiet minute ends the summary: the next refusal is a line at once.
  await kit.clock.advance(120_000);
  const before = lines().length;
  await agentRequest(kit, 'poll', 'bth_guess-later', flood);
  assert.deepEqual(
    lines()
      .slice(before)
      .map((l) => [l.security, l.count]),
    [['host.rejected', 1]],
  );
});

test('the agents of many hosts behind one address are not limited by each other; a host over its own rate is summarised', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const shared = '192.0.2.10';
  const tokens: string[] = [];
  for (let i = 0; i < 3 * REFUSED_TOKENS_BURST; i++) tokens.push(await kit.addHost(`web-${i}`));
  for (const token of tokens) {
    assert.equal((await agentRequest(kit, 'frames', token, shared)).status, 200);
    assert.equal((await agentRequest(kit, 'poll', token, shared)).status, 200);
  }

  // A poll burst of 10 per host, then one every 2 s: each poll beyond is a 429, a line a minute.
  const statuses: number[] = [];
  for (let i = 0; i < 40; i++) statuses.push((await agentRequest(kit, 'poll', tokens[0]!, shared)).status);
  assert.equal(statuses.filter((s) => s === 429).length, 31);
  const limited = () => memory.lines().filter((l) => l.security === 'rate.limited');
  assert.deepEqual(
    limited().map((l) => [l.count, l.detail]),
    [[1, 'web-0 sends polls faster than 30 a minute']],
  );
  await kit.clock.advance(60_000);
  assert.deepEqual(
    limited().map((l) => l.count),
    [1, 30],
  );
});
