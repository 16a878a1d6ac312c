import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock.ts';
import { Scheduler } from './scheduler.ts';

test('runs due ids in time order with one timer, and reschedules one id without moving others', async () => {
  const clock = new FakeClock(0);
  const runs: [string, number][] = [];
  const s = new Scheduler({ clock, concurrency: 10, run: (id) => void runs.push([id, clock.now()]) });
  s.set('a', 300);
  s.set('b', 100);
  s.set('c', 200);
  s.start();
  s.set('c', 50); // rescheduled earlier
  s.set('a', 400); // rescheduled later
  await clock.advance(1000);
  assert.deepEqual(runs, [
    ['c', 50],
    ['b', 100],
    ['a', 400],
  ]);
  s.remove('a');
  s.set('d', 1500);
  await clock.advance(1000);
  assert.deepEqual(runs.at(-1), ['d', 1500]);
  assert.equal(s.size, 0);
});

test('at most `concurrency` runs are in flight; the rest wait in order and report their lateness', async () => {
  const clock = new FakeClock(0);
  const releases: (() => void)[] = [];
  const started: string[] = [];
  const late: number[] = [];
  const s = new Scheduler({
    clock,
    concurrency: 2,
    run: (id) => {
      started.push(id);
      return new Promise<void>((r) => releases.push(r));
    },
    onStart: (_id, ms) => late.push(ms),
  });
  for (const id of ['a', 'b', 'c', 'd']) s.set(id, 10);
  s.start();
  await clock.advance(10);
  assert.deepEqual(started, ['a', 'b']);
  assert.equal(s.active, 2);
  await clock.advance(5);
  releases.shift()!();
  await clock.advance(0);
  assert.deepEqual(started, ['a', 'b', 'c']);
  assert.deepEqual(late, [0, 0, 5]);
  for (const r of releases.splice(0)) r();
  await clock.advance(0);
  for (const r of releases.splice(0)) r();
  await clock.advance(0);
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  assert.equal(s.active, 0);
});

test('a deadline is called when due, without a run slot, while runs wait for theirs', async () => {
  const clock = new FakeClock(0);
  const calls: [string, number][] = [];
  const s = new Scheduler({
    clock,
    concurrency: 1,
    run: (id) => {
      calls.push([id, clock.now()]);
      return id === 'deadline' ? undefined : new Promise<void>(() => {});
    },
  });
  s.set('a', 0);
  s.set('b', 0);
  s.set('deadline', 50, true);
  s.start();
  await clock.advance(100);
  assert.deepEqual(calls, [
    ['a', 0],
    ['deadline', 50],
  ]);
  assert.equal(s.active, 1, 'b still waits for the slot a holds');
});

test('stop halts runs', async () => {
  const clock = new FakeClock(0);
  let n = 0;
  const s = new Scheduler({ clock, concurrency: 1, run: () => void n++ });
  s.set('a', 10);
  s.start();
  s.stop();
  await clock.advance(100);
  assert.equal(n, 0);
});

test('rescheduling one id many times keeps the heap small', () => {
  const clock = new FakeClock(0);
  const scheduler = new Scheduler({ clock, concurrency: 1, run: () => {} });
  for (let i = 0; i < 100_000; i++) scheduler.set('beat', 1000 + i, true);
  const heap = (scheduler as unknown as { heap: unknown[] }).heap;
  assert.ok(heap.length <= 2048, `heap holds ${heap.length} entries for one id`);
  assert.equal(scheduler.size, 1);
});
