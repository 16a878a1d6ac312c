import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnalyticsRead } from '../../protocol/analytics.ts';
import { readServer } from './read-testkit.ts';

type Kit = Awaited<ReturnType<typeof readServer>>;

const chrome = (major: number) =>
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;

/** A page view of shop.example from the peer 127.0.0.1 (not in trusted_proxies) carrying `forwardedFor`. */
async function viaLocalPeer(kit: Kit, agent: string, forwardedFor: string): Promise<void> {
  const res = await kit.server.app.inject({
    method: 'POST',
    url: '/e',
    remoteAddress: '127.0.0.1',
    headers: { 'content-type': 'text/plain', 'user-agent': agent, 'x-forwarded-for': forwardedFor },
    payload: JSON.stringify({ k: 'v', d: 'shop.example', u: 'https://shop.example/' }),
  });
  assert.equal(res.statusCode, 204, res.body);
  // Under the peer's rate of 2 events a second.
  await kit.clock.jump(20_000);
}

const read = async (kit: Kit) =>
  (await kit.get('/api/v1/analytics?site=shop.example&range=24h')).body as AnalyticsRead;

test('a reverse proxy mon does not trust is named though its 150 visitors read as 12: they sent 150 addresses', async (t) => {
  const kit = await readServer(Date.UTC(2026, 2, 2, 12));
  t.after(() => kit.server.dispose());
  for (let i = 0; i < 150; i++) await viaLocalPeer(kit, chrome(120 + (i % 12)), `81.2.0.${i}`);
  const { totals, sharedAddress } = await read(kit);
  // Every visitor has the proxy's address: their ids differ by browser only.
  assert.equal(totals.visitors, 12);
  assert.deepEqual(sharedAddress.forwarded, { address: '127.0.0.1', sharePercent: 100 });
});

test('one visitor whose own header says the same each time is not named, however many events', async (t) => {
  const kit = await readServer(Date.UTC(2026, 2, 2, 12));
  t.after(() => kit.server.dispose());
  for (let i = 0; i < 40; i++) await viaLocalPeer(kit, chrome(120), '10.1.2.3');
  const { totals, sharedAddress } = await read(kit);
  assert.equal(totals.views, 40);
  assert.equal(sharedAddress.forwarded, null);
});
