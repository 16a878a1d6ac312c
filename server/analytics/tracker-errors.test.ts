import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorLine, rejectionLine } from './fixtures/site.ts';
import { chromiumTracker, views } from './fixtures/tracker-browser.ts';

describe('the script in Chromium: errors', () => {
  const kit = chromiumTracker();
  const { site, visitor, eventsOf, waitForEvents, sentBy } = kit;

  test('errors: thrown and rejected, with type, message, script, line, column and stack; at most 10 a page', async () => {
    const shop = await site('errors.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('errors.example', 'a view', (events) => views(events).length === 1);
    const later = (fn: string) =>
      page.evaluate(
        (name) =>
          new Promise<void>((resolve) => {
            setTimeout(() => (window as unknown as Record<string, () => void>)[name]!());
            setTimeout(resolve, 20);
          }),
        fn,
      );
    await later('explode');
    await later('reject');
    await page.evaluate(() => {
      void Promise.reject('a plain refusal');
    });
    const errors = (
      await waitForEvents(
        'errors.example',
        'three errors',
        (events) => events.filter((e) => e.k === 'x').length === 3,
      )
    ).filter((event) => event.k === 'x');
    const byType = Object.fromEntries(errors.map((error) => [error.n, error]));
    const thrown = byType.TypeError;
    assert.ok(thrown, JSON.stringify(errors));
    assert.deepEqual(
      { ...thrown, c: undefined, st: undefined },
      {
        k: 'x',
        d: 'errors.example',
        u: `${shop.url}/`,
        n: 'TypeError',
        m: 'boom at 0x1f in order 42',
        s: `${shop.url}/app.js`,
        l: errorLine,
        c: undefined,
        st: undefined,
      },
    );
    assert.ok(thrown.c !== undefined && thrown.c > 0);
    assert.match(thrown.st ?? '', new RegExp(`explode .*/app\\.js:${errorLine}:`));
    const rejected = byType.RangeError;
    assert.equal(rejected?.m, 'no way');
    assert.equal(rejected?.s, `${shop.url}/app.js`);
    assert.equal(rejected?.l, rejectionLine);
    assert.match(rejected?.st ?? '', /reject/);
    assert.deepEqual(byType.UnhandledRejection, {
      k: 'x',
      d: 'errors.example',
      u: `${shop.url}/`,
      n: 'UnhandledRejection',
      m: 'a plain refusal',
    });

    // An error in a loop: ten a page, then nothing.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          for (let i = 0; i < 20; i++)
            setTimeout(() => (window as unknown as { explode: () => void }).explode());
          setTimeout(resolve, 50);
        }),
    );
    assert.equal((await sentBy(page)).filter((event) => event.k === 'x').length, 10);
    await context.close();
  });

  test('an error whose event would be over 8 KiB in bytes is sent with its stack cut, its message whole', async () => {
    const shop = await site('long-errors.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('long-errors.example', 'a view', (events) => views(events).length === 1);
    // 2,000 characters of three bytes each, repeated at the top of the stack, deep in long-named frames.
    await page.evaluate(() => {
      const message = '错'.repeat(2500);
      const name = 'a'.repeat(300);
      const deep = new Function(
        'message',
        `return function ${name}(n) { if (n === 0) throw new Error(message); return ${name}(n - 1); }`,
      )(message);
      setTimeout(() => deep(12));
    });
    await waitForEvents('long-errors.example', 'the error', (events) => events.some((e) => e.k === 'x'));
    const request = kit.collector.to('/e').find((r) => {
      const { d, k } = (r.json ?? {}) as { d?: string; k?: string };
      return k === 'x' && d === 'long-errors.example';
    })!;
    assert.ok(Buffer.byteLength(request.body) <= 8192, `${Buffer.byteLength(request.body)} bytes`);
    const error = eventsOf('long-errors.example').find((e) => e.k === 'x')!;
    assert.equal(error.m, '错'.repeat(2000));
    // The stack keeps its top frames: the message it began with is left out, and the rest halved to fit.
    assert.ok(error.st?.startsWith(`Error:\n    at ${'a'.repeat(300)} (`), error.st);
    await context.close();
  });
});
