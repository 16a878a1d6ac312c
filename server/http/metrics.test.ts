import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { type AuthTestServer, authTestServer } from '../auth/test-helpers.ts';

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

  // promtool is Debian's `prometheus` package; npm test's preflight (test/preflight.ts) installs it.
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: r.body, encoding: 'utf8' });
  assert.equal(lint.error, undefined, 'promtool must be installed (Debian package prometheus)');
  assert.equal(lint.status, 0, `promtool check metrics: ${lint.stdout}${lint.stderr}`);
});
