import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { HOUR } from '../../protocol/durations.ts';
import { DistinctCount } from './distinct-count.ts';
import { networkOf, SharedAddressWatch } from './shared-address.ts';

const T0 = Date.UTC(2026, 2, 1, 12);
// Ids as a hash makes them, but the same on every run: the distinct counts are estimates, and a test
// must not pass or fail with the draw.
let drawn = 0;
const visitorId = () => createHash('sha256').update(String(drawn++)).digest('hex').slice(0, 32);
const nobodyTrusted = () => false;

/** `n` visitors, each from an address of their own, one event each. */
function others(watch: SharedAddressWatch, n: number, at = T0) {
  for (let i = 0; i < n; i++) watch.note('shop.example', at, `81.2.${i >> 8}.${i & 255}`, visitorId(), null);
}

test('an untrusted peer that forwards events is named with its share of the events', () => {
  const watch = new SharedAddressWatch();
  others(watch, 70);
  for (let i = 0; i < 30; i++) {
    watch.note('shop.example', T0, `8.8.4.${i}`, visitorId(), {
      peer: '203.0.113.7',
      forwardedFor: `8.8.4.${i}`,
    });
  }
  assert.deepEqual(watch.of('shop.example', T0, nobodyTrusted), {
    forwarded: { address: '203.0.113.7', sharePercent: 30 },
    proxy: null,
  });
  // Trusted since (mon.toml reloaded): no longer named.
  assert.equal(watch.of('shop.example', T0, (peer) => peer === '203.0.113.7').forwarded, null);
  // Another site saw none of it.
  assert.deepEqual(watch.of('blog.example', T0, nobodyTrusted), { forwarded: null, proxy: null });
});

test('an untrusted peer is named once it forwarded 20 different X-Forwarded-For values: one person’s own header names nobody', () => {
  const watch = new SharedAddressWatch();
  others(watch, 30);
  // One visitor whose extension (or own proxy) adds X-Forwarded-For: their address is the peer, and
  // the header says the same each time.
  const person = visitorId();
  const own = { peer: '127.0.0.9', forwardedFor: '10.0.0.2' };
  for (let i = 0; i < 40; i++) watch.note('shop.example', T0, '127.0.0.9', person, own);
  assert.equal(watch.of('shop.example', T0, nobodyTrusted).forwarded, null);
  // A reverse proxy mon does not trust: every visitor has its address, so their ids differ by browser
  // only (3 here); what it writes differs per person. 19 people over two hours: not yet enough.
  const browsers = [visitorId(), visitorId(), visitorId()];
  const person$ = (i: number) => ({ peer: '203.0.113.7', forwardedFor: `81.2.69.${i}` });
  for (let i = 0; i < 18; i++) {
    watch.note('shop.example', T0 + (i % 2) * HOUR, '203.0.113.7', browsers[i % 3]!, person$(i));
  }
  watch.note('shop.example', T0 + HOUR, '127.0.0.9', person, own);
  assert.equal(watch.of('shop.example', T0 + HOUR, nobodyTrusted).forwarded, null);
  watch.note('shop.example', T0 + HOUR, '203.0.113.7', browsers[0]!, person$(18));
  // The same person again adds nothing.
  watch.note('shop.example', T0 + HOUR, '203.0.113.7', browsers[0]!, person$(18));
  assert.equal(watch.of('shop.example', T0 + HOUR, nobodyTrusted).forwarded, null, '19 values');
  // The 20th: a proxy, named with its share of the events (21 of 30 + 41 + 21).
  watch.note('shop.example', T0 + HOUR, '203.0.113.7', browsers[1]!, person$(19));
  assert.deepEqual(watch.of('shop.example', T0 + HOUR, nobodyTrusted).forwarded, {
    address: '203.0.113.7',
    sharePercent: 22.8,
  });
});

test('an address is a proxy with at least 20 visitors making at least 10% of the site’s', () => {
  const watch = new SharedAddressWatch();
  others(watch, 75);
  for (let i = 0; i < 19; i++) watch.note('shop.example', T0, '198.51.100.1', visitorId(), null);
  assert.equal(watch.of('shop.example', T0, nobodyTrusted).proxy, null);
  // The 20th visitor behind it; the same visitor again does not count twice.
  const last = visitorId();
  watch.note('shop.example', T0 + HOUR, '198.51.100.1', last, null);
  watch.note('shop.example', T0 + HOUR, '198.51.100.1', last, null);
  const proxy = watch.of('shop.example', T0 + HOUR, nobodyTrusted).proxy;
  // The visitors' network, never their address: it may be an office's or a home's.
  assert.equal(proxy?.address, '198.51.100.0/24');
  assert.equal(proxy?.visitors, 20);
  // 20 of about 95 visitors; the site's count is an estimate within a few percent.
  assert.ok(Math.abs(proxy!.sharePercent - 21) <= 1.5, String(proxy!.sharePercent));

  // Among 500 visitors, 20 are 4%: not enough to say so.
  others(watch, 500, T0 + HOUR);
  assert.equal(watch.of('shop.example', T0 + HOUR, nobodyTrusted).proxy, null);
});

test('a client address is read out as its network: IPv4 /24, IPv6 /48', () => {
  assert.equal(networkOf('203.0.113.77'), '203.0.113.0/24');
  assert.equal(networkOf('2001:db8:7:42::1'), '2001:db8:7::/48');
  assert.equal(networkOf('2001:DB8:0:0:1:2:3:4'), '2001:db8::/48');
  assert.equal(networkOf('2001::1:2:3:4:5:6'), '2001:0:1::/48');
  assert.equal(networkOf('fe80::1%eth0'), 'fe80::/48');
  assert.equal(networkOf('::ffff:1.2.3.4'), '::/48');

  const watch = new SharedAddressWatch();
  for (let i = 0; i < 25; i++) watch.note('shop.example', T0, '2001:db8:7:42::99', visitorId(), null);
  assert.equal(watch.of('shop.example', T0, nobodyTrusted).proxy?.address, '2001:db8:7::/48');
});

test('what is older than 24 hours is forgotten', () => {
  const watch = new SharedAddressWatch();
  for (let i = 0; i < 25; i++) {
    watch.note('shop.example', T0, '198.51.100.1', visitorId(), {
      peer: '203.0.113.7',
      forwardedFor: `8.8.4.${i}`,
    });
  }
  assert.notEqual(watch.of('shop.example', T0 + 23 * HOUR, nobodyTrusted).proxy, null);
  watch.note('shop.example', T0 + 24 * HOUR, '81.2.69.160', visitorId(), null);
  assert.deepEqual(watch.of('shop.example', T0 + 24 * HOUR, nobodyTrusted), { forwarded: null, proxy: null });
});

test('a flood of addresses and peers does not grow it, and a proxy seen before still shows', () => {
  const watch = new SharedAddressWatch();
  for (let i = 0; i < 25; i++) watch.note('shop.example', T0, '198.51.100.1', visitorId(), null);
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100_000; i++) {
    watch.note('shop.example', T0, `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, visitorId(), {
      peer: `192.0.2.${i & 255}`,
      forwardedFor: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
    });
  }
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 20 * 1024 * 1024, `${grown} bytes`);
  const read = watch.of('shop.example', T0, nobodyTrusted);
  assert.equal(read.proxy, null); // 25 of about 100,000 visitors
  assert.ok(read.forwarded!.sharePercent < 1);
});

test('a proxy whose visitors come after thousands of other addresses in the hour still shows', () => {
  const watch = new SharedAddressWatch();
  // 2,000 addresses first, then 250 visitors from one address among 2,000 more: 250 of 4,250 is 6%…
  others(watch, 2_000);
  for (let i = 0; i < 2_000; i++) {
    watch.note('shop.example', T0, `82.3.${i >> 8}.${i & 255}`, visitorId(), null);
    if (i % 8 === 0) watch.note('shop.example', T0, '198.51.100.1', visitorId(), null);
  }
  assert.equal(watch.of('shop.example', T0, nobodyTrusted).proxy, null);
  // …and with 300 more of its visitors, 550 of 4,550: 12%.
  for (let i = 0; i < 300; i++) watch.note('shop.example', T0, '198.51.100.1', visitorId(), null);
  const proxy = watch.of('shop.example', T0, nobodyTrusted).proxy;
  assert.equal(proxy?.address, '198.51.100.0/24');
  assert.equal(proxy?.visitors, 550);
  assert.ok(Math.abs(proxy!.sharePercent - 12.3) <= 1, String(proxy!.sharePercent));
});

test('an hour whose visitor pairs are full makes room for a proxy that comes after', () => {
  const watch = new SharedAddressWatch();
  // 1,000 addresses of 20 visitors each: the 20,000 pairs an hour keeps.
  for (let a = 0; a < 1_000; a++)
    for (let i = 0; i < 20; i++)
      watch.note('shop.example', T0, `81.2.${a >> 8}.${a & 255}`, visitorId(), null);
  for (let i = 0; i < 3_000; i++) watch.note('shop.example', T0, '198.51.100.1', visitorId(), null);
  const proxy = watch.of('shop.example', T0, nobodyTrusted).proxy;
  assert.equal(proxy?.visitors, 3_000);
  // 3,000 of 23,000 visitors; the site's count is an estimate.
  assert.ok(Math.abs(proxy!.sharePercent - 13) <= 1, String(proxy!.sharePercent));
});

test('distinct counts: exact for few, within a few percent for many, merged across hours', () => {
  const few = new DistinctCount();
  for (let i = 0; i < 50; i++) few.add(visitorId());
  assert.ok(Math.abs(few.estimate() - 50) <= 2, String(few.estimate()));

  const a = new DistinctCount();
  const b = new DistinctCount();
  const ids = Array.from({ length: 20_000 }, visitorId);
  for (const id of ids.slice(0, 12_000)) a.add(id);
  for (const id of ids.slice(8_000)) b.add(id);
  a.merge(b);
  assert.ok(Math.abs(a.estimate() - 20_000) / 20_000 < 0.1, String(a.estimate()));
});
