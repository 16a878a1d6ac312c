import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { domainRunner, domainStatus, expirationOf, rdapBase } from './domain.ts';
import { checkOf, closedPort, contextOf, listen } from './fixtures/context.ts';

const DAY = 86_400_000;
const now = Date.now();
const expiries: Record<string, number> = {
  'far.test': now + 400 * DAY,
  'soon.test': now + 20 * DAY,
  'week.test': now + 5 * DAY,
  'gone.test': now - 3 * DAY,
  'www.far.test': now + 400 * DAY,
};
let bootstrapHits = 0;
let base = '';

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/rdap+json' });
    res.end(JSON.stringify(body));
  };
  if (url.split('?')[0] === '/dns.json') {
    bootstrapHits++;
    return json(200, {
      version: '1.0',
      services: [
        [['test'], [`${base}/rdap`]],
        [['co.example', 'other'], [`${base}/broken/`]],
      ],
    });
  }
  if (url === '/bad.json') return json(200, { nothing: true });
  const m = /^\/rdap\/domain\/(.+)$/.exec(url);
  const name = m ? decodeURIComponent(m[1]!) : '';
  if (name === 'noexp.test')
    return json(200, {
      objectClassName: 'domain',
      events: [{ eventAction: 'registration', eventDate: '2001-01-01T00:00:00Z' }],
    });
  if (name === 'garbage.test') return res.end('<html>');
  const expires = expiries[name];
  if (expires === undefined) return json(404, { errorCode: 404, title: 'Not Found' });
  return json(200, {
    objectClassName: 'domain',
    ldhName: name,
    events: [
      { eventAction: 'registration', eventDate: '2001-01-01T00:00:00Z' },
      { eventAction: 'expiration', eventDate: new Date(expires).toISOString() },
    ],
  });
});

before(async () => {
  base = `http://127.0.0.1:${await listen(server)}`;
});
after(() => server.close());

const run = (target: string, bootstrap = `${base}/dns.json`) =>
  domainRunner(checkOf({ kind: 'domain', target }), contextOf({ rdapBootstrapUrl: bootstrap }));

test('far expiry is up and observed', async () => {
  const out = await run('far.test');
  assert.equal(out.status, 'up');
  assert.match(out.detail, /^registration expires in (399|400) days \(\d{4}-\d\d-\d\d\)$/);
  assert.deepEqual(out.expiry, { kind: 'domain', expires: expiries['far.test'] });
});

test('within 30 days degraded, within 7 days or expired down', async () => {
  const soon = await run('soon.test');
  assert.equal(soon.status, 'degraded');
  assert.match(soon.detail, /^registration expires in (19|20) days/);
  const week = await run('week.test');
  assert.equal(week.status, 'down');
  const gone = await run('gone.test');
  assert.equal(gone.status, 'down');
  assert.match(gone.detail, /^registration expired 3 days ago/);
  assert.deepEqual(gone.expiry, { kind: 'domain', expires: expiries['gone.test'] });
});

test('the name is queried as given, subdomain included', async () => {
  assert.equal((await run('www.far.test')).status, 'up');
  assert.equal((await run('FAR.test.')).status, 'up');
});

test('RDAP failures are down with a detail', async () => {
  const missing = await run('unknown.test');
  assert.deepEqual([missing.status, missing.detail], ['down', 'domain not found at its RDAP server (404)']);
  assert.equal(missing.expiry, undefined);
  assert.deepEqual([(await run('noexp.test')).detail], ['the RDAP answer has no expiration date']);
  assert.match((await run('garbage.test')).detail, /^RDAP query failed: the answer is not JSON$/);
  assert.equal((await run('foo.zzz')).detail, 'no RDAP service is known for .zzz');
  assert.equal((await run('x.other')).detail, 'domain not found at its RDAP server (404)');
  const unreachable = await run('far.test', `http://127.0.0.1:${await closedPort()}/dns.json`);
  assert.deepEqual(
    [unreachable.status, unreachable.detail],
    ['down', 'RDAP bootstrap failed: connection refused'],
  );
  const bad = await run('far.test', `${base}/bad.json`);
  assert.match(bad.detail, /not an RDAP bootstrap file/);
});

test('the bootstrap file is fetched once a day per URL', async () => {
  const url = `${base}/dns.json?cache-test`;
  const before = bootstrapHits;
  await run('far.test', url);
  await run('soon.test', url);
  assert.equal(bootstrapHits - before, 1);
  const tomorrow = contextOf({ rdapBootstrapUrl: url, now: () => Date.now() + 25 * 3600_000 });
  const out = await domainRunner(checkOf({ kind: 'domain', target: 'far.test' }), tomorrow);
  assert.equal(out.status, 'up');
  assert.equal(bootstrapHits - before, 2, 'fetched again after a day');
});

test('helpers: thresholds, base URLs, expiration events', () => {
  const t = Date.UTC(2026, 0, 1);
  assert.equal(domainStatus(t + 31 * DAY, t).status, 'up');
  assert.equal(domainStatus(t + 30 * DAY, t).status, 'degraded');
  assert.equal(domainStatus(t + 8 * DAY, t).status, 'degraded');
  assert.equal(domainStatus(t + 7 * DAY, t).status, 'down');
  assert.equal(domainStatus(t - 1, t).status, 'down');
  const services: [string[], string[]][] = [
    [['uk'], ['https://rdap.nic.uk/']],
    [['co.uk'], ['http://plain.example/', 'https://co.example/rdap']],
  ];
  assert.equal(rdapBase(services, 'shop.co.uk')?.href, 'https://co.example/rdap/');
  assert.equal(rdapBase(services, 'example.uk')?.href, 'https://rdap.nic.uk/');
  assert.equal(rdapBase(services, 'example.com'), null);
  assert.equal(expirationOf({ events: [{ eventAction: 'expiration', eventDate: 'soon' }] }), null);
  assert.equal(expirationOf(null), null);
});
