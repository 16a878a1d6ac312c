import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { type Answer, type Receiver, startReceiver } from '../server/http/fixtures/receiver.ts';
import { within } from '../server/testing.ts';
import { frame, outboxWorld, textsOf, token } from './fixtures/outbox-world.ts';
import { FLUSH_BYTES } from './outbox.ts';

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
});

/** Real time for requests that are not supposed to come. */
const quiet = () => new Promise((resolve) => setTimeout(resolve, 150));

const world = () => outboxWorld(receiver.url);

test('a flush is one POST of the gathered frames; the file goes once the server answered 200', async () => {
  const w = await world();
  try {
    w.outbox.add(frame('a'));
    w.outbox.add(frame('b'));
    await w.outbox.flush();
    await receiver.arrived(1);
    assert.deepEqual(textsOf(receiver.received[0]!), ['a', 'b']);
    assert.equal(receiver.received[0]!.headers.authorization, `Bearer ${token}`);
    await within(5000, 'the file deleted', () => w.files().length === 0);
    await w.outbox.flush();
    await quiet();
    assert.equal(receiver.received.length, 1, 'nothing gathered: nothing sent');
  } finally {
    await w.dispose();
  }
});

test('while the server answers 503 the batches wait in the spool; then they go oldest first', async () => {
  const w = await world();
  try {
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '5' } });
    w.outbox.add(frame('a'));
    await w.outbox.flush();
    await receiver.arrived(1);
    await w.waiting();
    w.outbox.add(frame('b'));
    await w.outbox.flush();
    w.outbox.add(frame('c'));
    await w.outbox.flush();
    await quiet();
    assert.equal(receiver.received.length, 1, 'nothing more is sent before the Retry-After');
    assert.equal(w.files().length, 3);
    assert.match(w.logged.join(''), /warn the server is busy \(503\); keeping 1 batch in the spool/);

    await w.clock.advance(5000);
    await receiver.arrived(2);
    await w.waiting();
    assert.deepEqual(textsOf(receiver.received[1]!), ['a'], 'the oldest is tried again first');

    receiver.answer = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
    await w.clock.advance(5000);
    await receiver.arrived(5);
    assert.deepEqual(receiver.received.slice(2).map(textsOf), [['a'], ['b'], ['c']]);
    await within(5000, 'the files deleted', () => w.files().length === 0);
    assert.match(w.logged.join(''), /info the server takes frames again: sending 2 waiting batches/);
  } finally {
    await w.dispose();
  }
});

test('a refused token keeps the frames and backs off 1 s, 2 s, 4 s …; a poll answer ends the wait', async () => {
  const w = await world();
  try {
    receiver.answer = () => ({
      status: 401,
      body: { type: 'about:blank', status: 401, title: 'Unauthorized' },
    });
    w.outbox.add(frame('a'));
    await w.outbox.flush();
    await receiver.arrived(1);
    await w.waiting();
    await w.clock.advance(999);
    await quiet();
    assert.equal(receiver.received.length, 1);
    await w.clock.advance(1);
    await receiver.arrived(2);
    await w.waiting();
    await w.clock.advance(1999);
    await quiet();
    assert.equal(receiver.received.length, 2);
    await w.clock.advance(1);
    await receiver.arrived(3);
    await w.waiting();
    const log = w.logged.join('');
    assert.match(log, /error the server refused the token \(401\); keeping 1 batch in the spool/);
    assert.equal(log.match(/refused the token/g)?.length, 1, 'said once, not at every try');
    assert.equal(w.files().length, 1);

    receiver.answer = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
    w.outbox.retryNow();
    await receiver.arrived(4);
    await within(5000, 'the file deleted', () => w.files().length === 0);
  } finally {
    await w.dispose();
  }
});

test('a batch the server calls bad is dropped and logged; the next goes on', async () => {
  const w = await world();
  try {
    receiver.next({
      status: 422,
      body: { type: 'about:blank', status: 422, title: 'x', detail: 'frames[0].ts: required' },
    });
    w.outbox.add(frame('bad'));
    await w.outbox.flush();
    await receiver.arrived(1);
    w.outbox.add(frame('good'));
    await w.outbox.flush();
    await receiver.arrived(2);
    assert.deepEqual(receiver.received.map(textsOf), [['bad'], ['good']]);
    await within(5000, 'the files deleted', () => w.files().length === 0);
    assert.match(
      w.logged.join(''),
      /error the server refused a batch as bad \(422: frames\[0\]\.ts: required\): dropped/,
    );
  } finally {
    await w.dispose();
  }
});

test('frames past 1 MiB are sent at once, not at the next sample', async () => {
  const w = await world();
  try {
    const line = 'x'.repeat(1900);
    const count = Math.ceil(FLUSH_BYTES / line.length) + 1;
    for (let i = 0; i < count; i++) w.outbox.add(frame(line));
    await receiver.arrived(1);
    const sent = textsOf(receiver.received[0]!).length;
    assert.ok(sent >= FLUSH_BYTES / 2000 && sent < count, `${sent} frames in the first request`);
  } finally {
    await w.dispose();
  }
});

test('stopping writes what was gathered to the spool and sends nothing more', async () => {
  const w = await world();
  try {
    receiver.answer = () => ({ status: 503 });
    w.outbox.add(frame('a'));
    await w.outbox.flush();
    await receiver.arrived(1);
    await w.waiting();
    w.outbox.add(frame('b'));
    await w.outbox.stop(0);
    assert.equal(w.files().length, 2);
    await w.clock.advance(120_000);
    await quiet();
    assert.equal(receiver.received.length, 1);
  } finally {
    await w.dispose();
  }
});

test('a batch the server keeps failing on with 500 while it stores the next is set aside; the next goes on', async () => {
  const w = await world();
  try {
    receiver.answer = (request) =>
      textsOf(request)[0] === 'poison' ? { status: 500 } : { status: 200, body: { stored: 1, skipped: 0 } };
    w.outbox.add(frame('poison'));
    await w.outbox.flush();
    w.outbox.add(frame('next'));
    await w.outbox.flush();
    let sent = 1;
    await receiver.arrived(sent);
    // 1 + 2 + 4 + 8 s later it had 5 tries: kept, since that is under 2 minutes.
    for (const backoff of [1000, 2000, 4000, 8000]) {
      await w.waiting();
      await w.clock.advance(backoff);
      await receiver.arrived(++sent);
    }
    await w.waiting();
    assert.equal(receiver.received.length, 5);
    assert.ok(
      receiver.received.every((r) => textsOf(r)[0] === 'poison'),
      'kept while under 2 minutes',
    );
    assert.equal(w.spool.size().files, 2);

    // The 8th try, 123 s after the first: the batch behind it is sent as a test and stored; the
    // poison fails once more and is set aside.
    for (const backoff of [16_000, 32_000, 60_000]) {
      await w.waiting();
      await w.clock.advance(backoff);
      await receiver.arrived(++sent);
    }
    await receiver.arrived(sent + 2);
    assert.deepEqual(receiver.received.flatMap(textsOf), [...Array(8).fill('poison'), 'next', 'poison']);
    await within(5000, 'set aside', () => w.logged.join('').includes('set aside'));
    assert.equal(w.spool.size().files, 0);
    assert.deepEqual(w.files(), ['rejected']);
    const rejected = readdirSync(join(w.dir, 'spool', 'rejected'));
    assert.equal(rejected.length, 1);
    const log = w.logged.join('');
    assert.ok(
      log.includes(
        `error the server answered 500 to the same batch 9 times, and stored the batch behind it: set aside in spool/rejected/${rejected[0]}; sending the next`,
      ),
      log,
    );
    assert.equal(log.match(/set aside/g)?.length, 1, 'logged once');
  } finally {
    await w.dispose();
  }
});

test('a busy answer to the batch behind is no verdict: the oldest is tried after Retry-After and tested again', async () => {
  const w = await world();
  try {
    let busyOnce = true;
    receiver.answer = (request) => {
      if (textsOf(request)[0] === 'poison') return { status: 500 };
      if (busyOnce) {
        busyOnce = false;
        return { status: 503, headers: { 'retry-after': '1' } };
      }
      return { status: 200, body: { stored: 1, skipped: 0 } };
    };
    w.outbox.add(frame('poison'));
    await w.outbox.flush();
    w.outbox.add(frame('next'));
    await w.outbox.flush();
    let sent = 1;
    await receiver.arrived(sent);
    // Eight tries over 123 s; the eighth sends the batch behind as a test, answered 503.
    for (const backoff of [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000]) {
      await w.waiting();
      await w.clock.advance(backoff);
      await receiver.arrived(++sent);
    }
    await receiver.arrived(sent + 1);
    // Retry-After 1 s: the oldest once more, the test again (stored), the oldest set aside.
    await w.waiting();
    await w.clock.advance(1000);
    await receiver.arrived(sent + 4);
    assert.deepEqual(receiver.received.flatMap(textsOf), [
      ...Array(8).fill('poison'),
      'next',
      'poison',
      'next',
      'poison',
    ]);
    await within(5000, 'set aside', () => w.logged.join('').includes('set aside'));
    assert.doesNotMatch(w.logged.join(''), /the next batch fails too/);
  } finally {
    await w.dispose();
  }
});

/**
 * An outage answered with `answer` for ten minutes while a batch is added every minute, then 200:
 * every batch arrives, in order, and none is set aside.
 */
async function outage(answer: Answer) {
  const w = await world();
  try {
    receiver.answer = () => answer;
    w.outbox.add(frame('b0'));
    await w.outbox.flush();
    await receiver.arrived(1);
    // Each minute one sample's batch, and the timer (never over 60 s) fires: a try, at times with a test.
    for (let minute = 1; minute <= 10; minute++) {
      await w.waiting();
      w.outbox.add(frame(`b${minute}`));
      await w.outbox.flush();
      const before = receiver.received.length;
      await w.clock.advance(60_000);
      await receiver.arrived(before + 1);
    }
    await w.waiting();
    const tests = receiver.received.filter((r) => textsOf(r)[0] !== 'b0');
    assert.ok(tests.length >= 2, `the batch behind was tried as a test ${tests.length} times`);
    assert.equal(w.spool.size().files, 11, 'all kept');
    assert.ok(!w.files().includes('rejected'), 'nothing set aside');

    const from = receiver.received.length;
    receiver.answer = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
    await w.clock.advance(60_000);
    await receiver.arrived(from + 11);
    const expected = Array.from({ length: 11 }, (_, i) => `b${i}`);
    assert.deepEqual(receiver.received.slice(from).flatMap(textsOf), expected, 'all, oldest first');
    await within(5000, 'the spool emptied', () => w.files().length === 0);
    const log = w.logged.join('');
    assert.doesNotMatch(log, /set aside/);
    assert.equal(log.match(/the next batch fails too/g)?.length, 1, log);
    return log;
  } finally {
    await w.dispose();
  }
}

test('a proxy answering 404 for ten minutes (then 200) sets no batch aside; all arrive in order', async () => {
  const log = await outage({ status: 404, body: 'Not Found' });
  assert.match(
    log,
    /warn cannot send frames \(the server answered 404 to POST \/agent\/v1\/frames: .*a mon server too old for this agent\); keeping 1 batch in the spool/,
  );
  assert.equal(log.match(/cannot send frames/g)?.length, 1, 'said once');
});

test('an outage of 500, 502 or a maintenance page answered 200 sets no batch aside either', async () => {
  await outage({ status: 500 });
  await outage({ status: 502 });
  const log = await outage({
    status: 200,
    body: '<html><body>Down for maintenance</body></html>',
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });
  assert.match(log, /cannot send frames \(the server answered 200 without mon's answer \(text\/html\)\)/);
});
