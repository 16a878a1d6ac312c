import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { after, before, test } from 'node:test';
import { makePki } from '../../runners/fixtures/certs.ts';
import { closedPort, listen } from '../../runners/fixtures/context.ts';
import type { Principal } from '../auth/access.ts';
import { type AuthTestServer, authTestServer } from '../auth/test-helpers.ts';
import { FakeClock } from '../clock.ts';
import { createMetrics } from '../metrics.ts';
import { type CheckSample, MAX_CHECKS_SHOWN } from '../metrics-checks.ts';
import { createTestServer } from '../testing.ts';

let server: AuthTestServer;
before(async () => {
  server = await authTestServer();
});
after(() => server.dispose());

const specMetrics = [
  'mon_check_runs_total',
  'mon_ingest_accepted_total',
  'mon_ingest_rejected_total',
  'mon_agent_unknown_frames_total',
  'mon_writer_commits_total',
  'mon_agents_connected',
  'mon_outbox_due',
  'mon_engine_up',
];

test('/metrics needs read access', async () => {
  const anonymous = await server.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(anonymous.statusCode, 401);
  const deploy = await server.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${await server.tokenOf('deploy')}` },
  });
  assert.equal(deploy.statusCode, 403);
});

test('/metrics shows every metric of the spec, fed by real events, in valid Prometheus text', async () => {
  const token = await server.tokenOf('read');
  await server.deps.store.writer.run((db) => db.exec('CREATE TABLE t (x)'));
  const r = await server.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
  for (const name of specMetrics) assert.match(r.body, new RegExp(`^# TYPE ${name} `, 'm'), name);
  const commits = /^mon_writer_commits_total (\d+)/m.exec(r.body);
  assert.ok(commits && Number(commits[1]) >= 1, 'writer commits are counted');
  assert.match(r.body, /^mon_ingest_rejected_total\{reason="queue_full"\} 0/m);
  // Every labelled series is there from the first scrape, before any run.
  assert.match(r.body, /^mon_check_runs_total\{kind="http",status="down"\} 0/m);
  assert.match(r.body, /^mon_check_runs_total\{kind="command",status="up"\} 0/m);

  promtool(r.body);
});

test('/metrics shows each check from memory: up, status, last latency, certificate and domain expiry', async (t) => {
  const pki = makePki();
  t.after(() => pki.dispose());
  const leaf = pki.leaf(20);
  const site = https.createServer(leaf, (_req, res) => {
    // A measurable latency: the series must carry the last run's, in seconds.
    setTimeout(() => res.end('ok'), 150);
  });
  const sitePort = await listen(site);
  t.after(() => site.close());
  const domainExpires = Date.UTC(2031, 4, 1);
  const rdap = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/rdap+json');
    if (req.url === '/dns.json') {
      return res.end(JSON.stringify({ version: '1.0', services: [[['test'], [`${rdapBase}/rdap`]]] }));
    }
    const events = [{ eventAction: 'expiration', eventDate: new Date(domainExpires).toISOString() }];
    res.end(JSON.stringify({ objectClassName: 'domain', ldhName: 'shop.test', events }));
  });
  const rdapBase = `http://127.0.0.1:${await listen(rdap)}`;
  t.after(() => rdap.close());

  const clock = new FakeClock(Date.now());
  const writer: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
  const server = await createTestServer({
    clock,
    authenticate: async () => writer,
    checks: { runContext: { extraCa: [pki.caPem], rdapBootstrapUrl: `${rdapBase}/dns.json` } },
  });
  t.after(() => server.dispose());
  const add = async (body: Record<string, unknown>) => {
    const res = await server.app.inject({ method: 'POST', url: '/api/v1/checks', payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string }>().id;
  };
  const scrape = async () => (await server.app.inject({ url: '/metrics' })).body;
  // Prometheus escapes a double quote in a label value; check names may hold one.
  const home = 'shop "home" ✓';
  const shown = 'check="shop \\"home\\" ✓",service="shop",kind="http"';
  await add({ name: home, service: 'shop', kind: 'http', target: `https://127.0.0.1:${sitePort}/` });
  const db = await add({
    name: 'db port',
    service: 'db',
    kind: 'tcp',
    target: `127.0.0.1:${await closedPort()}`,
  });
  await add({ name: 'shop domain', service: 'shop', kind: 'domain', target: 'shop.test' });
  await add({ name: 'nightly', service: 'jobs', kind: 'heartbeat', everyMs: 3_600_000 });
  // A new check runs at once; the closed port needs a second failed run, a minute later, to be down.
  await until(async () => (await scrape()).includes(`mon_check_up{${shown}} 1`));
  await until(async () => (await scrape()).includes('mon_check_domain_expiry_timestamp_seconds{'));
  await until(async () => (await scrape()).includes('mon_check_runs_total{kind="tcp",status="down"} 1'));
  await clock.advance(60_000);
  await until(async () =>
    /mon_check_status\{check="db port",service="db",kind="tcp",status="down"\} 1/.test(await scrape()),
  );

  const text = await scrape();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    assert.ok(line, `${series} is shown`);
    return Number(line.slice(series.length + 1));
  };
  assert.equal(value(`mon_check_up{${shown}}`), 1);
  for (const status of ['up', 'down', 'degraded', 'unknown']) {
    assert.equal(value(`mon_check_status{${shown},status="${status}"}`), status === 'up' ? 1 : 0);
  }
  assert.ok(value(`mon_check_latency_seconds{${shown}}`) >= 0.15, 'the last run took 150 ms or more');
  const certExpires = Date.parse(new X509Certificate(leaf.cert).validTo) / 1000;
  assert.equal(value(`mon_check_cert_expiry_timestamp_seconds{${shown}}`), certExpires);

  const tcp = 'check="db port",service="db",kind="tcp"';
  assert.equal(value(`mon_check_up{${tcp}}`), 0);
  assert.equal(value(`mon_check_status{${tcp},status="down"}`), 1);
  assert.equal(value(`mon_check_status{${tcp},status="up"}`), 0);
  assert.doesNotMatch(text, /^mon_check_cert_expiry_timestamp_seconds\{check="db port"/m);

  const domain = 'check="shop domain",service="shop",kind="domain"';
  assert.equal(value(`mon_check_domain_expiry_timestamp_seconds{${domain}}`), domainExpires / 1000);
  const heartbeat = 'check="nightly",service="jobs",kind="heartbeat"';
  assert.equal(value(`mon_check_status{${heartbeat},status="unknown"}`), 1);
  assert.doesNotMatch(text, /^mon_check_latency_seconds\{check="nightly"/m, 'no run, no latency');
  assert.equal(value('mon_checks_omitted'), 0);
  promtool(text);

  // A deleted check's series go with it.
  assert.equal((await server.app.inject({ method: 'DELETE', url: `/api/v1/checks/${db}` })).statusCode, 204);
  assert.doesNotMatch(await scrape(), /check="db port"/);
});

test('at most 10,000 checks are shown one by one: the first by name; the rest are counted', async () => {
  const metrics = createMetrics();
  const checks: CheckSample[] = [];
  for (let i = 0; i <= MAX_CHECKS_SHOWN; i++) {
    const name = `check ${String(MAX_CHECKS_SHOWN - i).padStart(5, '0')}`;
    checks.push({ name, service: 'shop', kind: 'http', status: 'up', latencyMs: 12, expiry: null });
  }
  // Label values escape a backslash, a double quote and a line feed.
  checks[5000]!.name = 'a\\b "c"\nd';
  metrics.showChecks(() => checks);
  const began = performance.now();
  const text = await metrics.text();
  const took = performance.now() - began;
  assert.equal(text.match(/^mon_check_up\{/gm)?.length, MAX_CHECKS_SHOWN);
  assert.equal(text.match(/^mon_check_status\{/gm)?.length, 4 * MAX_CHECKS_SHOWN);
  assert.match(text, /^mon_checks_omitted 1$/m);
  assert.match(text, /^mon_check_up\{check="a\\\\b \\"c\\"\\nd",service="shop",kind="http"\} 1$/m);
  assert.match(text, /^mon_check_up\{check="check 00000"/m);
  assert.doesNotMatch(text, /check="check 10000"/, 'the last by name is left out');
  assert.ok(took < 2000, `a scrape of 10,000 checks took ${Math.round(took)} ms`);
  promtool(text);
});

/** Polls until `ok` holds (runs reach real peers on loopback), for at most 10 s. */
async function until(ok: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${ok}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `promtool check metrics` on the text; npm test's preflight (test/preflight.ts) installs promtool. */
function promtool(text: string): void {
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(lint.error, undefined, 'promtool must be installed (Debian package prometheus)');
  assert.equal(lint.status, 0, `promtool check metrics: ${lint.stdout}${lint.stderr}`);
}
