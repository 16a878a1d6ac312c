import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentFrame, SampleFrame } from '../protocol/agent.ts';
import { within } from '../server/testing.ts';
import { agentAgainst } from './fixtures/agent-world.ts';
import { countingClock } from './fixtures/clock.ts';
import { startStandInServer } from './fixtures/stand-in-server.ts';

test('samples at the interval the poll gives; hello and the declaration again every hour', async () => {
  const server = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 60_000 },
    checks: [],
    commands: [],
  });
  const clock = countingClock();
  const agent = await agentAgainst(server.url, clock);
  const frames = () => server.posts().flatMap((post) => server.framesOf(post));
  const count = (kind: AgentFrame['kind']) => frames().filter((f) => f.kind === kind).length;
  try {
    await within(
      5000,
      'hello, a sample and the declaration',
      () => count('hello') === 1 && count('declare') === 1,
    );
    assert.deepEqual(
      frames().find((f) => f.kind === 'declare'),
      {
        kind: 'declare',
        ts: clock.now(),
        checks: [
          {
            name: 'queue-length',
            service: 'shop',
            command: "echo 'queue 3'",
            everyMs: 10_000,
            timeoutMs: 10_000,
          },
        ],
        problems: [],
      },
    );
    const first = frames().find((f): f is SampleFrame => f.kind === 'sample');
    assert.deepEqual([first?.cpu, first?.containers, first?.units], [12.5, [], null]);
    // The fixture's file is shared with db-1: its table is counted as another host's.
    assert.match(
      agent.logged.join(''),
      /info checks\.toml: 1 command check for web-1 \(1 for other hosts: db-1\)/,
    );
    // Readers that fail or have nothing are said once.
    assert.match(agent.logged.join(''), /warn systemd does not answer: left out of the samples/);

    await clock.advance(59_999);
    assert.equal(count('sample'), 1, 'the server asked for a sample a minute, not every 15 s');
    await clock.advance(1);
    await within(5000, 'the second sample', () => count('sample') === 2);
    await clock.advance(3_600_000 - 60_000);
    await within(
      5000,
      'hello and the declaration again',
      () => count('hello') === 2 && count('declare') === 2,
    );
    assert.equal(agent.logged.join('').match(/systemd does not answer/g)?.length, 1);
  } finally {
    await agent.stop();
    await server.close();
  }
});

test('a poll refused for its token is logged once and tried again after 1 s, 2 s, 4 s', async () => {
  const server = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 15_000 },
    checks: [],
    commands: [],
  });
  server.receiver.answer = (request) =>
    request.path === '/agent/v1/poll' ? { status: 401 } : { status: 200, body: { stored: 1, skipped: 0 } };
  const clock = countingClock();
  const agent = await agentAgainst(server.url, clock);
  const polls = () => server.receiver.to('/agent/v1/poll').length;
  const refused = () =>
    agent.logged.filter((line) => line.includes('refused the token (401) on the poll')).length;
  try {
    // Armed: the sample, the hourly hello, and the poll's wait.
    await within(5000, 'the first poll refused', () => polls() === 1 && refused() === 1);
    await clock.armed(3);
    await clock.advance(999);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(polls(), 1);
    await clock.advance(1);
    await within(5000, 'the second poll', () => polls() === 2);
    await clock.armed(3);
    await clock.advance(1999);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(polls(), 2);
    await clock.advance(1);
    await within(5000, 'the third poll', () => polls() === 3);
    assert.equal(refused(), 1);
    assert.match(agent.logged.join(''), /error the server refused the token \(401\) on the poll/);
  } finally {
    await agent.stop();
    await server.close();
  }
});
