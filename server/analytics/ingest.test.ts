import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AnalyticsRead, MAX_TRACKER_BODY_BYTES } from '../../protocol/analytics.ts';
import { within } from '../testing.ts';
import { agents, BRITISH_ADDRESS, trackerServer, view } from './testkit.ts';

test('a page view is answered 204 once stored, read into what storage keeps', async (t) => {
  const kit = await trackerServer();
  t.after(() => kit.dispose());
  const answer = await kit.send(
    view({
      u: 'https://shop.example/pricing?utm_source=Newsletter&utm_medium=email#plans',
      r: 'https://www.News.example.org/item?id=1',
    }),
  );
  assert.equal(answer.status, 204);
  assert.equal(answer.headers['access-control-allow-origin'], '*');
  // 204 means committed: the item is already in what storage recorded after its commit.
  assert.equal(kit.stored.length, 1);
  const item = kit.stored[0]!;
  assert.match(item.visitor, /^[0-9a-f]{32}$/);
  assert.deepEqual(
    { ...item, visitor: '…' },
    {
      site: 'shop.example',
      ts: kit.clock.now(),
      visitor: '…',
      page: '/pricing',
      device: 'desktop',
      browser: 'Chrome',
      os: 'Windows',
      country: 'GB',
      event: {
        kind: 'view',
        referrer: 'news.example.org',
        utm: { source: 'newsletter', medium: 'email', campaign: null },
      },
    },
  );
  assert.equal(await kit.counter('ingestAccepted', 'tracker'), 1);
  // Neither the address nor the user agent is in what is stored.
  assert.ok(!JSON.stringify(kit.stored).includes(BRITISH_ADDRESS));
});

test('engagement and errors are read too; www. finds the bare domain, application/json is read as well', async (t) => {
  const kit = await trackerServer();
  t.after(() => kit.dispose());
  const engage = {
    k: 'e',
    d: 'WWW.Shop.Example',
    u: 'https://www.shop.example/',
    t: 4200,
    w: { lcp: 1800, cls: 0.05 },
  };
  assert.equal((await kit.send(engage, { agent: agents.safariIphone })).status, 204);
  const error = {
    k: 'x',
    d: 'shop.example',
    u: 'https://shop.example/cart',
    n: 'TypeError',
    m: "Cannot read properties of undefined (reading 'id')",
    s: 'https://shop.example/app.js?v=3&token=s3cr3t#main',
    l: 12,
    c: 7,
    st: 'TypeError: …\n    at add (https://shop.example/app.js?v=3:12:7)',
  };
  const json = { headers: { 'content-type': 'application/json' }, agent: agents.firefoxAndroid };
  assert.equal((await kit.send(error, json)).status, 204);
  assert.equal(
    (await kit.send({ k: 'x', d: 'shop.example', u: 'https://shop.example/', m: 'boom' })).status,
    204,
  );
  const [engaged, thrown, bare] = kit.stored;
  assert.equal(engaged!.site, 'shop.example');
  assert.deepEqual([engaged!.device, engaged!.browser, engaged!.os], ['mobile', 'Safari', 'iOS']);
  assert.deepEqual(engaged!.event, { kind: 'engage', engagedMs: 4200, vitals: { lcp: 1800, cls: 0.05 } });
  assert.deepEqual([thrown!.device, thrown!.browser, thrown!.os], ['mobile', 'Firefox', 'Android']);
  assert.deepEqual(thrown!.event, {
    kind: 'error',
    type: 'TypeError',
    message: error.m,
    // Without query and fragment: a token may ride there.
    script: 'https://shop.example/app.js',
    line: 12,
    column: 7,
    stack: error.st,
  });
  assert.deepEqual(bare!.event, {
    kind: 'error',
    type: 'Error',
    message: 'boom',
    script: null,
    line: null,
    column: null,
    stack: null,
  });
  assert.equal(await kit.counter('ingestAccepted', 'tracker'), 3);
});

test('each refusal has its status and its reason in mon_ingest_rejected_total, and stores nothing', async (t) => {
  const kit = await trackerServer();
  t.after(() => kit.dispose());
  const extensionError = (where: Record<string, string>) => ({
    k: 'x',
    d: 'shop.example',
    u: 'https://shop.example/',
    m: 'oops',
    ...where,
  });
  const cases: {
    name: string;
    send: () => ReturnType<typeof kit.send>;
    status: number;
    reason: string;
    detail?: RegExp;
  }[] = [
    {
      name: 'not JSON',
      send: () => kit.send(null, { raw: '{"k":' }),
      status: 400,
      reason: 'invalid',
      detail: /JSON/,
    },
    { name: 'empty', send: () => kit.send(null, { raw: '' }), status: 400, reason: 'invalid' },
    { name: 'not an object', send: () => kit.send([1]), status: 400, reason: 'invalid' },
    {
      name: 'unknown kind',
      send: () => kit.send(view({ k: 'q' })),
      status: 400,
      reason: 'invalid',
      detail: /^k: /,
    },
    {
      name: 'unknown field',
      send: () => kit.send(view({ zz: 1 })),
      status: 400,
      reason: 'invalid',
      detail: /^zz: /,
    },
    {
      name: 'engagement not a number',
      send: () => kit.send({ k: 'e', d: 'shop.example', u: 'https://shop.example/', t: 'long' }),
      status: 400,
      reason: 'invalid',
      detail: /^t: /,
    },
    {
      name: 'page not a URL',
      send: () => kit.send(view({ u: '/pricing' })),
      status: 400,
      reason: 'invalid',
      detail: /^u: /,
    },
    {
      name: 'body over 8 KiB',
      send: () => kit.send(view({ r: `https://a.example/${'x'.repeat(MAX_TRACKER_BODY_BYTES)}` })),
      status: 413,
      reason: 'invalid',
    },
    {
      name: 'content type',
      send: () => kit.send(view(), { headers: { 'content-type': 'application/xml' } }),
      status: 415,
      reason: 'invalid',
    },
    {
      name: 'unknown site',
      send: () => kit.send(view({ d: 'blog.example' })),
      status: 404,
      reason: 'unknown_site',
    },
    { name: 'isbot', send: () => kit.send(view(), { agent: agents.googlebot }), status: 403, reason: 'bot' },
    {
      name: 'headless',
      send: () => kit.send(view(), { agent: agents.headlessChrome }),
      status: 403,
      reason: 'bot',
    },
    {
      name: 'electron',
      send: () =>
        kit.send(view(), {
          agent:
            'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) app/1.0.0 Chrome/120.0.0.0 Electron/28.0.0 Safari/537.36',
        }),
      status: 403,
      reason: 'bot',
    },
    { name: 'no user agent', send: () => kit.send(view(), { agent: null }), status: 403, reason: 'bot' },
    { name: 'webdriver', send: () => kit.send(view({ h: 1 })), status: 403, reason: 'bot' },
    {
      name: 'extension script',
      send: () => kit.send(extensionError({ s: 'chrome-extension://abcdef/content.js' })),
      status: 422,
      reason: 'extension',
      detail: /^s: /,
    },
    {
      name: 'extension frame',
      send: () =>
        kit.send(extensionError({ st: 'Error: oops\n    at x (moz-extension://1234/inject.js:1:2)' })),
      status: 422,
      reason: 'extension',
    },
    {
      name: 'safari extension',
      send: () => kit.send(extensionError({ st: 'x@webkit-masked-url://hidden/:1:2' })),
      status: 422,
      reason: 'extension',
    },
  ];
  const expected = new Map<string, number>();
  for (const c of cases) {
    const answer = await c.send();
    assert.equal(answer.status, c.status, c.name);
    assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8', c.name);
    assert.equal(answer.headers['access-control-allow-origin'], '*', c.name);
    if (c.detail) assert.match(String(answer.body?.detail), c.detail, c.name);
    expected.set(c.reason, (expected.get(c.reason) ?? 0) + 1);
  }
  for (const [reason, n] of expected) assert.equal(await kit.counter('ingestRejected', reason), n, reason);
  assert.equal(await kit.counter('ingestAccepted', 'tracker'), 0);
  assert.deepEqual(kit.stored, []);
  // A refusal costs no salt either: nothing was written.
  assert.equal(kit.server.deps.store.read.prepare('SELECT count(*) AS n FROM analytics_salts').get()!.n, 0);
});

test('a visitor address sends bursts of 30, then 2 a second; other addresses are not slowed', async (t) => {
  const kit = await trackerServer();
  t.after(() => kit.dispose());
  for (let i = 0; i < 30; i++) assert.equal((await kit.send(view())).status, 204, `event ${i + 1}`);
  const refused = await kit.send(view());
  assert.equal(refused.status, 429);
  assert.equal(refused.headers['retry-after'], '1');
  assert.equal(await kit.counter('ingestRejected', 'rate_limited'), 1);
  // Another visitor's address has its own bucket.
  assert.equal((await kit.send(view(), { address: '8.8.8.8' })).status, 204);

  await kit.clock.advance(1000);
  assert.equal((await kit.send(view())).status, 204);
  assert.equal((await kit.send(view())).status, 204);
  assert.equal((await kit.send(view())).status, 429);
  await kit.clock.advance(500);
  assert.equal((await kit.send(view())).status, 204);
  assert.equal((await kit.send(view())).status, 429);
  assert.equal(kit.stored.length, 30 + 1 + 3);

  // An IPv6 visitor's whole /64 shares one bucket.
  for (let i = 0; i < 30; i++) await kit.send(view(), { address: `2001:db8:1:2::${i + 1}` });
  assert.equal((await kit.send(view(), { address: '2001:db8:1:2:ffff::9' })).status, 429);
});

test('behind a trusted proxy the visitor is the forwarded address: its rate and its country', async (t) => {
  const kit = await trackerServer({ toml: 'trusted_proxies = ["10.0.0.0/8"]\n' });
  t.after(() => kit.dispose());
  const via = (client: string) => ({ address: '10.0.0.2', headers: { 'x-forwarded-for': client } });
  for (let i = 0; i < 30; i++) assert.equal((await kit.send(view(), via('8.8.8.8'))).status, 204);
  assert.equal((await kit.send(view(), via('8.8.8.8'))).status, 429);
  assert.equal((await kit.send(view(), via(BRITISH_ADDRESS))).status, 204);
  assert.deepEqual(
    kit.stored.slice(-2).map((i) => i.country),
    ['US', 'GB'],
  );
  assert.notEqual(kit.stored[0]!.visitor, kit.stored.at(-1)!.visitor);
});

test('a full queue answers 503 with Retry-After, counted as queue_full; the waiting event is stored', async (t) => {
  const kit = await trackerServer({ maxWaitingEvents: 1 });
  t.after(() => kit.dispose());
  // Today's salt first, so that the next writer job is the queue's.
  assert.equal((await kit.send(view())).status, 204);
  const writer = kit.server.deps.store.writer;
  const run = writer.run.bind(writer);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let asked = false;
  writer.run = (fn) => {
    asked = true;
    return gate.then(() => run(fn));
  };
  t.after(() => {
    writer.run = run;
  });
  const waiting = kit.send(view({ u: 'https://shop.example/first' }));
  // The first event waits for storage; the second finds the queue full.
  await within(2000, 'the first event is handed to storage', () => asked);
  // Refused at once; a queue that took it would hold its answer behind the gate: the test fails
  // then, rather than waiting for the runner's limit.
  const gaveUp = new AbortController();
  const second = await Promise.race([
    kit.send(view({ u: 'https://shop.example/second' }), { address: '8.8.8.8' }),
    sleep(5000, null, { signal: gaveUp.signal }).catch(() => null),
  ]);
  gaveUp.abort();
  if (second === null) {
    open();
    assert.fail('the second event was not refused within 5 s: the queue took it');
  }
  assert.equal(second.status, 503);
  assert.equal(second.headers['retry-after'], '1');
  assert.equal(second.headers['access-control-allow-origin'], '*');
  assert.equal(await kit.counter('ingestRejected', 'queue_full'), 1);
  open();
  assert.equal((await waiting).status, 204);
  assert.deepEqual(
    kit.stored.map((i) => i.page),
    ['/pricing', '/first'],
  );
});

test('a chunked body without a length is cut off at 8 KiB while it is read', async (t) => {
  const kit = await trackerServer();
  t.after(() => kit.dispose());
  const base = new URL(await kit.server.app.listen({ port: 0, host: '127.0.0.1' }));
  const answer = await new Promise<{ status: number; origin: unknown }>((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path: '/e',
        headers: { 'content-type': 'text/plain', 'user-agent': agents.chromeWindows },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, origin: res.headers['access-control-allow-origin'] }),
        );
      },
    );
    req.on('error', reject);
    // No content-length: node sends the body chunked.
    for (let i = 0; i < 3; i++) req.write('x'.repeat(4096));
    req.end();
  });
  assert.deepEqual(answer, { status: 413, origin: '*' });
  assert.equal(await kit.counter('ingestRejected', 'invalid'), 1);
});

test('the analytics read names an untrusted peer that forwards events and an address many visitors share', async (t) => {
  const kit = await trackerServer({ toml: 'trusted_proxies = ["10.0.0.1"]\n' });
  t.after(() => kit.dispose());
  const chrome = (i: number) =>
    `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.${i}.0 Safari/537.36`;
  // 25 visitors behind one client address, forwarded by the trusted proxy.
  for (let i = 0; i < 25; i++) {
    const sent = await kit.send(view(), {
      address: '10.0.0.1',
      agent: chrome(i),
      headers: { 'x-forwarded-for': '198.51.100.23' },
    });
    assert.equal(sent.status, 204);
  }
  // Events from a peer mon does not trust: it is taken for the visitor; named as a proxy once it
  // forwarded 20 different X-Forwarded-For values (forwarding-peer.test.ts), not before.
  const forwarded = async (i: number) => {
    const sent = await kit.send(view(), {
      address: '203.0.113.50',
      agent: chrome(100 + i),
      headers: { 'x-forwarded-for': `81.2.69.${i}` },
    });
    assert.equal(sent.status, 204);
  };
  for (let i = 0; i < 19; i++) await forwarded(i);
  const read = async () =>
    ((await kit.read('/api/v1/analytics?site=shop.example')) as AnalyticsRead).sharedAddress;
  assert.equal((await read()).forwarded, null, '19 visitors through it');
  await forwarded(19);
  const sharedAddress = await read();
  assert.deepEqual(sharedAddress.forwarded, { address: '203.0.113.50', sharePercent: 44.4 });
  assert.deepEqual(
    { ...sharedAddress.proxy, sharePercent: 0 },
    {
      address: '198.51.100.0/24',
      visitors: 25,
      sharePercent: 0,
    },
  );
  // 25 of 45 visitors; the site's count is an estimate (distinct-count.ts), never under the 25, and
  // its ids are salted afresh each run: 42 to 48 of them.
  const share = sharedAddress.proxy!.sharePercent;
  assert.ok(share >= 52 && share <= 59.6, String(share));
});
