import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REMEMBERED_BATCHES } from '../../protocol/agent.ts';
import { FakeClock } from '../clock.ts';
import type { WriteFn } from '../store/writer.ts';
import { hostServer, sample, T0, unit } from './testkit.ts';

const http = (name: string, from: string) => ({
  name,
  service: 'shop',
  kind: 'http',
  target: `https://${name}.example.com/`,
  from,
});
const run = (id: string, ts: number, status: 'up' | 'down') => ({
  kind: 'run',
  ts,
  id,
  status,
  latencyMs: status === 'up' ? 12 : null,
  detail: status === 'up' ? '200 OK' : '503 Service Unavailable',
});
const log = (ts: number, text: string) => ({ kind: 'log', lines: [{ ts, level: 'warn', text }] });

test('a batch sent again is answered as stored and stores nothing twice, even when both sends cross', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  await kit.send(token, [run(home, T0, 'up')], { batch: 'first' });
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up');

  // One failed run, sent twice at once (the agent gave up waiting for the first answer).
  const batch = [
    sample(T0 + 15_000),
    log(T0 + 15_000, 'server slow to answer'),
    run(home, T0 + 15_000, 'down'),
  ];
  const answers = await Promise.all([
    kit.send(token, batch, { batch: 'b-2' }),
    kit.send(token, batch, { batch: 'b-2' }),
  ]);
  assert.deepEqual(
    answers.map((a) => [a.status, a.body]),
    [
      [200, { stored: 3, skipped: 0 }],
      [200, { stored: 3, skipped: 0 }],
    ],
  );
  const stored = () => ({
    runs: kit.count('SELECT count(*) AS n FROM check_runs WHERE check_id = ?', home),
    samples: kit.count("SELECT sum(cpu_n) AS n FROM host_rollups WHERE res = 'm'"),
    lines: kit.count('SELECT count(*) AS n FROM agent_logs'),
  });
  assert.deepEqual(stored(), { runs: 2, samples: 1, lines: 1 });
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up', 'one failure is not down');

  // Much later (its answer was lost): still stored once, but the host was seen.
  await kit.clock.advance(30_000);
  assert.deepEqual((await kit.send(token, batch, { batch: 'b-2' })).body, { stored: 3, skipped: 0 });
  assert.deepEqual(stored(), { runs: 2, samples: 1, lines: 1 });
  assert.equal(kit.count('SELECT last_seen AS n FROM hosts'), T0 + 30_000);
  assert.match(await kit.server.deps.metrics.text(), /mon_ingest_accepted_total\{endpoint="agent"\} 4/);

  const long = await kit.send(token, batch, { batch: 'x'.repeat(65) });
  assert.equal(long.status, 400);
  assert.match(long.body.detail, /^batch: /);
});

test("each host remembers its last 256 batch ids; another host's ids are its own", async (t) => {
  // The samples are dated up to an hour after T0: the server's clock is past them.
  const kit = await hostServer({ clock: new FakeClock(T0 + 2 * 3_600_000) });
  t.after(() => kit.server.dispose());
  const one = await kit.addHost('web-1');
  const two = await kit.addHost('web-2');
  for (let i = 0; i <= REMEMBERED_BATCHES; i++) {
    assert.equal((await kit.send(one, [sample(T0 + i * 15_000)], { batch: `b${i}` })).status, 200);
  }
  assert.equal(kit.count("SELECT count(*) AS n FROM agent_batches WHERE host = 'web-1'"), REMEMBERED_BATCHES);
  const samples = () =>
    kit.count("SELECT sum(cpu_n) AS n FROM host_rollups WHERE host = 'web-1' AND res = 'd'");
  await kit.send(one, [sample(T0 + 15_000)], { batch: 'b1' });
  assert.equal(samples(), REMEMBERED_BATCHES + 1, 'b1 is remembered');
  await kit.send(one, [sample(T0)], { batch: 'b0' });
  assert.equal(samples(), REMEMBERED_BATCHES + 2, 'b0 was forgotten: stored again');
  await kit.send(two, [sample(T0)], { batch: 'b1' });
  assert.equal(kit.count("SELECT sum(cpu_n) AS n FROM host_rollups WHERE host = 'web-2' AND res = 'd'"), 1);
});

test('batches go to storage at most 32 to a writer job, fewer when they weigh more than 1,000 rows', async (t) => {
  const kit = await hostServer({ clock: new FakeClock(T0 + 2 * 3_600_000) });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const writer = kit.server.deps.store.writer;
  const run = writer.run.bind(writer);
  let jobs = 0;
  writer.run = (<T>(fn: WriteFn<T>) => {
    jobs++;
    return run(fn);
  }) as typeof writer.run;
  t.after(() => {
    writer.run = run;
  });
  const answers = await Promise.all(
    Array.from({ length: 100 }, (_, i) => kit.send(token, [sample(T0 + i * 15_000)], { batch: `b${i}` })),
  );
  assert.ok(answers.every((a) => a.status === 200));
  assert.equal(kit.count("SELECT sum(cpu_n) AS n FROM host_rollups WHERE res = 'd'"), 100);
  assert.ok(jobs >= Math.ceil(100 / 32), `${jobs} jobs for 100 batches`);

  // A host with 250 containers and units: a batch weighs 251 rows, three go to a job.
  jobs = 0;
  const units = Array.from({ length: 250 }, (_, i) => unit({ name: `u${i}.service` }));
  const big = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      kit.send(token, [sample(T0 + (100 + i) * 15_000, { units })], { batch: `big${i}` }),
    ),
  );
  assert.ok(big.every((a) => a.status === 200));
  assert.ok(jobs >= 4, `${jobs} jobs for 12 big batches`);
});
