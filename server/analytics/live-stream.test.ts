import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { authTestServer } from '../auth/test-helpers.ts';
import { FakeClock } from '../clock.ts';
import { tempDir } from '../testing.ts';
import { agents, BRITISH_ADDRESS, view } from './testkit.ts';

const SECOND = 1000;

/**
 * docs/panel.md "Live updates": stored tracker events invalidate `analytics` on the live stream at
 * most once every 10 s. The first after a quiet spell goes out with the next event, later ones wait
 * for the 10 s mark, so the last event of a burst is always followed by one; a stream just opened
 * waits 10 s, since its panel has just read the page. Real tracker events, stored by the real writer,
 * through `GET /api/v1/stream` on loopback.
 */
test('a burst of tracker events invalidates analytics at most twice in 10 s, and once after its last event', async (t) => {
  const work = tempDir();
  t.after(() => work.remove());
  const configPath = join(work.dir, 'mon.toml');
  writeFileSync(configPath, '[[service]]\nname = "shop"\nsites = ["shop.example"]\n');
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const server = await authTestServer({ configPath, clock });
  t.after(() => server.dispose());
  const token = await server.tokenOf('read');
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;

  // The stream's events, each with the fake clock's time when it arrived.
  const events: { at: number; keys: string[] }[] = [];
  let opened = 0;
  await new Promise<void>((resolve, reject) => {
    const req = get(`${base}/api/v1/stream`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      assert.equal(res.statusCode, 200);
      opened = clock.now();
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const line = text.slice(0, end);
          text = text.slice(end + 2);
          if (line.startsWith('data: '))
            events.push({ at: clock.now(), keys: JSON.parse(line.slice(6)).invalidate });
        }
      });
      res.on('error', () => {});
      resolve();
    });
    t.after(() => req.destroy());
    req.on('error', reject);
  });
  const analytics = (from: number, to: number) =>
    events
      .filter((e) => e.keys.includes('analytics') && e.at >= from && e.at <= to)
      .map((e) => e.at - opened);
  /** One page view, stored (and its invalidation sent, if due now) before this returns. */
  const send = async (n: number) => {
    const sent = await server.app.inject({
      method: 'POST',
      url: '/e',
      remoteAddress: BRITISH_ADDRESS,
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': agents.chromeWindows },
      payload: JSON.stringify(view({ u: `https://shop.example/item-${n}` })),
    });
    assert.equal(sent.statusCode, 204, sent.body);
    await advance(0);
  };
  /** Moves the clock on, letting the stream's bytes arrive. */
  const advance = async (ms: number) => {
    await clock.advance(ms);
    await new Promise((r) => setTimeout(r, 20));
  };

  // Just opened: a page view a second later waits for the 10 s mark (its panel read the page as it opened).
  await advance(SECOND);
  await send(0);
  await advance(9 * SECOND - 1);
  assert.deepEqual(analytics(opened, clock.now()), []);
  await advance(1);
  assert.deepEqual(analytics(opened, clock.now()), [10 * SECOND]);

  // A quiet spell, then four page views a second for 10 s: one at once, the rest at the 10 s mark.
  await advance(20 * SECOND);
  const start = clock.now();
  for (let i = 1; i <= 40; i++) {
    await send(i);
    await advance(SECOND / 4);
  }
  const last = clock.now() - SECOND / 4;
  const burst = analytics(start, start + 10 * SECOND);
  assert.ok(burst.length <= 2, `analytics invalidations within 10 s: ${burst}`);
  assert.deepEqual(burst, [30 * SECOND, 40 * SECOND]);
  // The last page view (at 9.75 s) went out at the 10 s mark; nothing is left to send after it.
  assert.ok(analytics(last, last + 10 * SECOND).length === 1);
  await advance(30 * SECOND);
  assert.equal(analytics(start, clock.now()).length, 2);
});
