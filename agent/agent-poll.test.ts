import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { AgentFrame } from '../protocol/agent.ts';
import { type Answer, type Received, startReceiver } from '../server/http/fixtures/receiver.ts';
import { within } from '../server/testing.ts';
import { agentAgainst } from './fixtures/agent-world.ts';
import { countingClock } from './fixtures/clock.ts';

/**
 * The real agent against a loopback HTTP server that answers its poll as a server of another version
 * would: what it sends in the poll, what it does with an answer it can read only in part.
 */

const framesOf = (request: Received): AgentFrame[] =>
  (JSON.parse(gunzipSync(request.bytes).toString()) as { frames: AgentFrame[] }).frames;

/** A server that answers every poll at once with `poll()`, and frames with `frames()`. */
async function skewServer(poll: () => Answer) {
  const receiver = await startReceiver();
  const server = {
    receiver,
    frames: (): Answer => ({ status: 200, body: { stored: 1, skipped: 0 } }),
    poll,
    polls: () => receiver.to('/agent/v1/poll'),
    /** Frames of the POSTs answered 200, in order. */
    stored: () => storedPosts.flatMap(framesOf),
  };
  const storedPosts: Received[] = [];
  receiver.answer = (request) => {
    if (request.path === '/agent/v1/poll') return server.poll();
    const answer = server.frames();
    if (answer.status === 200) storedPosts.push(request);
    return answer;
  };
  return server;
}

/** A poll answer as a server of any version may send it. */
const answerOf = (over: Record<string, unknown>) => ({
  status: 200,
  body: {
    protocol: 1,
    assignment: 'a1',
    host: 'web-1',
    settings: { sampleEveryMs: 15_000 },
    checks: [],
    commands: [],
    ...over,
  },
});

/** Lets polls answered at once come back: each next one waits 1 s of the agent's clock. */
async function polled(
  server: { polls: () => Received[] },
  clock: ReturnType<typeof countingClock>,
  count: number,
) {
  while (server.polls().length < count) {
    const before = server.polls().length;
    await clock.advance(1000);
    await within(5000, `poll ${before + 1}`, () => server.polls().length > before);
  }
}

test('the poll names what this agent is: its version, protocol and capabilities (ping, headers)', async () => {
  const server = await skewServer(() => answerOf({}));
  const clock = countingClock();
  const agent = await agentAgainst(server.receiver.url, clock);
  try {
    await within(5000, 'the first poll', () => server.polls().length >= 1);
    // A server gives ping checks and checks with request headers only to an agent that names them.
    assert.deepEqual(Object.fromEntries(server.polls()[0]!.query), {
      assignment: '',
      version: '0.1.0',
      protocol: '1',
      capabilities: 'ping,headers',
    });
    await polled(server, clock, 2);
    assert.equal(server.polls()[1]!.query.get('assignment'), 'a1', 'the assignment it has');
  } finally {
    await agent.stop();
    await server.receiver.close();
  }
});

test('a check of a kind this agent does not run is left out and named once; the host is known and its other checks run', async () => {
  const server = await skewServer(() => ({ status: 503 }));
  const grpc = {
    id: 'c9',
    name: 'api-grpc',
    kind: 'grpc',
    target: 'api.internal:9000',
    method: null,
    headers: {},
    everyMs: 60_000,
    timeoutMs: 10_000,
    expect: [],
    allowLinkLocal: false,
    env: {},
    service: 'shop',
  };
  const tcp = { ...grpc, id: 'c1', name: 'self', kind: 'tcp', target: server.receiver.host };
  server.poll = () => answerOf({ checks: [grpc, tcp], commands: [{ id: 'k1', name: 'queue-length' }] });
  const clock = countingClock();
  const agent = await agentAgainst(server.receiver.url, clock);
  const runs = () => server.stored().filter((f) => f.kind === 'run');
  try {
    await within(5000, 'the host known and declared', () =>
      server.stored().some((f) => f.kind === 'declare'),
    );
    assert.equal(agent.said(/connected: the server knows this host as web-1/).length, 1);
    await polled(server, clock, 4);
    assert.deepEqual(
      agent.said(/api-grpc/).map((line) => line.replace(/^\S+ /, '')),
      ['warn check api-grpc (grpc, id c9) not run: kind grpc is not one this agent runs: update the agent\n'],
      'said once, not on every poll',
    );
    assert.deepEqual(agent.said(/poll failed/), []);
    // The readable server check and the command check run on their intervals.
    for (
      let i = 0;
      i < 60 && !(runs().some((r) => r.id === 'c1') && runs().some((r) => r.id === 'k1'));
      i++
    ) {
      await clock.advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await within(
      5000,
      'runs of c1 and k1',
      () => runs().some((r) => r.id === 'c1') && runs().some((r) => r.id === 'k1'),
    );
    assert.equal(runs().find((r) => r.id === 'c1')?.status, 'up');
    assert.equal(runs().find((r) => r.id === 'k1')?.status, 'up');
    assert.ok(!runs().some((r) => r.id === 'c9'));
  } finally {
    await agent.stop();
    await server.receiver.close();
  }
});

test('a server of another protocol version is said once, not on every poll, and the agent carries on', async () => {
  const server = await skewServer(() => answerOf({ protocol: 2 }));
  const clock = countingClock();
  const agent = await agentAgainst(server.receiver.url, clock);
  try {
    await polled(server, clock, 4);
    await within(5000, 'the declaration', () => server.stored().some((f) => f.kind === 'declare'));
    assert.equal(
      agent.said(/warn the server speaks agent protocol 2, this agent 1: update one of them/).length,
      1,
    );
    // The server goes back to this agent's protocol, then to a third: each change is said once.
    server.poll = () => answerOf({ protocol: 1 });
    await polled(server, clock, 6);
    server.poll = () => answerOf({ protocol: 3 });
    await polled(server, clock, 8);
    assert.equal(agent.said(/speaks agent protocol/).length, 2);
    assert.equal(agent.said(/speaks agent protocol 3, this agent 1/).length, 1);
  } finally {
    await agent.stop();
    await server.receiver.close();
  }
});

test('after an outage the waiting batches go as soon as the poll is answered, not after the backoff', async () => {
  // Down: frames answer 502 (a proxy in front of a stopped server), polls 503 with Retry-After 1.
  const server = await skewServer(() => ({ status: 503, headers: { 'retry-after': '1' } }));
  server.frames = () => ({ status: 502 });
  const clock = countingClock();
  const agent = await agentAgainst(server.receiver.url, clock);
  const posts = () => server.receiver.to('/agent/v1/frames').length;
  try {
    // Two minutes down: the outbox's backoff grows to a minute (tries at 0, 1, 3, 7, 15, 31, 63 s…).
    for (let s = 0; s < 120; s++) {
      await clock.advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await within(5000, 'six tries of frames', () => posts() >= 6);
    assert.equal(server.stored().length, 0);
    // Up again: the next poll (due in a second) is answered, and with it the spool is sent at once,
    // though the outbox's backoff has most of a minute left.
    server.frames = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
    server.poll = () => answerOf({});
    const samples = () => server.stored().filter((f) => f.kind === 'sample').length;
    await clock.advance(1000);
    await within(5000, 'the poll answered', () => agent.said(/connected: the server knows/).length === 1);
    // Nine samples were taken (at 0, 15 … 120 s); the clock does not move from here.
    await within(5000, `the waiting samples stored, got ${samples()}`, () => samples() >= 9);
    assert.equal(agent.said(/the server takes frames again/).length, 1);
  } finally {
    await agent.stop();
    await server.receiver.close();
  }
});
