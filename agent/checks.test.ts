import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import type { AssignedCheck, DeclaredCheck, RunFrame } from '../protocol/agent.ts';
import { closedPort } from '../runners/fixtures/context.ts';
import { FakeClock } from '../server/clock.ts';
import { type Receiver, startReceiver } from '../server/http/fixtures/receiver.ts';
import { within } from '../server/testing.ts';
import { createCheckRunner, delayToPhase } from './checks.ts';
import { createAgentLog } from './log.ts';

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());
afterEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200, body: 'ok' });
});

function assigned(
  fields: Partial<AssignedCheck> & Pick<AssignedCheck, 'id' | 'kind' | 'target'>,
): AssignedCheck {
  return {
    name: fields.id,
    method: fields.kind === 'http' ? 'GET' : null,
    headers: {},
    everyMs: 60_000,
    timeoutMs: 5000,
    expect: [],
    allowLinkLocal: false,
    env: {},
    ...fields,
  };
}

function world() {
  const clock = new FakeClock();
  const frames: RunFrame[] = [];
  const logged: string[] = [];
  const log = createAgentLog({ now: () => clock.now(), write: (line) => logged.push(line) });
  const runner = createCheckRunner({
    clock,
    log,
    onRun: (frame) => frames.push(frame),
    commandEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  return { clock, frames, logged, runner };
}

test('server checks run with the server runners, their variable references filled from the assignment', async () => {
  const w = world();
  try {
    const port = await closedPort();
    w.runner.assign(
      {
        checks: [
          assigned({
            id: 'h1',
            kind: 'http',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${NAME} reference
            target: '${BASE}/health',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${NAME} reference
            headers: { authorization: 'Bearer ${API_TOKEN}' },
            env: { BASE: receiver.url, API_TOKEN: 'hunter2' },
          }),
          assigned({ id: 't1', kind: 'tcp', target: `127.0.0.1:${port}` }),
          // Without ping where it runs, the detail says it is the agent's.
          assigned({ id: 'p1', kind: 'ping', target: '127.0.0.1', env: { PATH: '/nonexistent' } }),
        ],
        commands: [],
      },
      [],
    );
    assert.deepEqual(w.runner.running().sort(), ['h1', 'p1', 't1']);
    await w.clock.advance(60_000);
    await within(5000, 'three runs', () => w.frames.length === 3);
    const byId = Object.fromEntries(w.frames.map((f) => [f.id, f]));
    assert.equal(byId.h1?.status, 'up');
    assert.equal(byId.h1?.detail, '200 OK');
    assert.equal(byId.t1?.status, 'down');
    assert.equal(byId.t1?.detail, 'connection refused');
    assert.match(byId.p1?.detail ?? '', /^ping is not installed where the agent runs/);
    assert.equal(receiver.received[0]?.path, '/health');
    assert.equal(receiver.received[0]?.headers.authorization, 'Bearer hunter2');
    // Each ran at its own point of the minute, which its id decides.
    const start = Date.UTC(2026, 0, 1);
    assert.equal(byId.h1?.ts, start + delayToPhase('h1', 60_000, start));
    assert.equal(byId.t1?.ts, start + delayToPhase('t1', 60_000, start));
  } finally {
    w.runner.stop();
  }
});

test('checks of one interval are spread over it, each at the same point after a restart', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 7);
  const delays = Array.from({ length: 100 }, (_, i) => delayToPhase(`check-${i}`, 60_000, now));
  for (const delay of delays) assert.ok(delay >= 0 && delay < 60_000);
  const seconds = new Set(delays.map((d) => Math.floor(d / 1000)));
  assert.ok(seconds.size > 40, `100 checks start in ${seconds.size} different seconds of the minute`);
  // The point in the interval is the id's, whatever the time: later, the same phase.
  assert.equal(
    (now + delayToPhase('x', 60_000, now)) % 60_000,
    (now + 25_000 + delayToPhase('x', 60_000, now + 25_000)) % 60_000,
  );
});

test('at most one run of a check at a time; a run is aborted at its timeout', async () => {
  const w = world();
  try {
    const release = receiver.hold();
    w.runner.assign(
      {
        checks: [
          assigned({
            id: 'slow',
            kind: 'http',
            target: `${receiver.url}/slow`,
            everyMs: 10_000,
            timeoutMs: 9000,
          }),
        ],
        commands: [],
      },
      [],
    );
    await w.clock.advance(10_000);
    await receiver.arrived(1);
    await w.clock.advance(20_000);
    assert.equal(receiver.received.length, 1, 'the next two were skipped while the first ran');
    release();
    await within(5000, 'the first run', () => w.frames.length === 1);
    assert.equal(w.frames[0]?.status, 'up');

    const cut = world();
    const releaseCut = receiver.hold();
    try {
      cut.runner.assign(
        {
          checks: [
            assigned({
              id: 'cut',
              kind: 'http',
              target: `${receiver.url}/cut`,
              everyMs: 10_000,
              timeoutMs: 300,
            }),
          ],
          commands: [],
        },
        [],
      );
      await cut.clock.advance(10_000);
      await within(5000, 'the timed out run', () => cut.frames.length === 1);
      assert.deepEqual([cut.frames[0]?.status, cut.frames[0]?.detail], ['down', 'timed out after 300 ms']);
    } finally {
      cut.runner.stop();
      releaseCut();
    }
  } finally {
    w.runner.stop();
  }
});

test('an assignment replaces the last: removed checks stop (a run in flight is dropped), changed ones start again', async () => {
  const w = world();
  try {
    const check = assigned({ id: 'a', kind: 'http', target: `${receiver.url}/a`, everyMs: 10_000 });
    w.runner.assign({ checks: [check], commands: [] }, []);
    const release = receiver.hold();
    await w.clock.advance(10_000);
    await receiver.arrived(1);
    w.runner.assign({ checks: [], commands: [] }, []);
    release();
    assert.deepEqual(w.runner.running(), []);
    await w.clock.advance(60_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(w.frames.length, 0, 'the run of a check no longer assigned is not sent');
    assert.equal(receiver.received.length, 1);

    w.runner.assign({ checks: [check], commands: [] }, []);
    await w.clock.advance(10_000);
    await within(5000, 'a run', () => w.frames.length === 1);
    // The same definition again: it keeps its schedule; a changed target starts again.
    w.runner.assign({ checks: [check], commands: [] }, []);
    w.runner.assign({ checks: [{ ...check, target: `${receiver.url}/b` }], commands: [] }, []);
    await w.clock.advance(10_000);
    await within(5000, 'a run of the new target', () => w.frames.length === 2);
    assert.equal(receiver.received.at(-1)?.path, '/b');
  } finally {
    w.runner.stop();
  }
});

test('command checks run only when the server lists them, with the id it gave', async () => {
  const w = world();
  const declared: DeclaredCheck[] = [
    { name: 'disk', service: 'storage', command: 'echo "used 42%"', everyMs: 10_000, timeoutMs: 5000 },
    { name: 'not-accepted', service: 'storage', command: 'echo no', everyMs: 10_000, timeoutMs: 5000 },
  ];
  try {
    w.runner.assign(
      {
        checks: [assigned({ id: 'hb', kind: 'heartbeat', target: '' })],
        commands: [
          { id: 'c-17', name: 'disk' },
          { id: 'c-18', name: 'gone' },
        ],
      },
      declared,
    );
    assert.deepEqual(w.runner.running(), ['c-17']);
    await w.clock.advance(10_000);
    await within(5000, 'a command run', () => w.frames.length === 1);
    const [frame] = w.frames;
    assert.equal(frame?.kind, 'run');
    assert.equal(frame?.id, 'c-17');
    assert.equal(frame?.status, 'up');
    assert.equal(frame?.detail, 'used 42%');
    assert.equal(frame?.value, 42);
    const log = w.logged.join('');
    assert.match(
      log,
      /command check gone: the server lists it, but this agent's checks\.toml has no such check/,
    );
    assert.match(log, /check hb: a heartbeat is pushed to the server, not run by an agent/);
  } finally {
    w.runner.stop();
  }
});
