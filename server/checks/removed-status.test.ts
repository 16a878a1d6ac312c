import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { IncidentRead, IncidentsList } from '../../protocol/incidents.ts';
import { closedPort } from '../../runners/fixtures/context.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { int, nullable, scalar, text } from '../store/rows.ts';
import { createTestServer, within } from '../testing.ts';

const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

/**
 * docs/configuration.md "Removed checks": a check put back starts its status afresh. Its removal closed
 * its alert, so one put back while its target is still down must open an incident again after two
 * failed runs (real reload of mon.toml, real tcp runs against a closed port on loopback).
 */
test('a file check put back while still failing opens an incident after two failed runs; a dependent joins it', async (t) => {
  const port = await closedPort();
  const pg = `[[check]]\nname = "pg"\nservice = "db"\ntcp = "127.0.0.1:${port}"\nevery = "10s"\n`;
  const shop = `[[service]]\nname = "shop"\ndepends_on = ["db"]\n[[check]]\nname = "home"\nservice = "shop"\ntcp = "127.0.0.1:${port}"\nevery = "30s"\n`;
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const server = await createTestServer({ clock, authenticate: async () => admin });
  t.after(() => server.dispose());
  const file = join(server.dataDir, 'mon.toml');
  const db = server.deps.store.read;
  const get = async <T>(url: string) => (await server.app.inject({ url })).json<T>();
  const incidents = async () => (await get<IncidentsList>('/api/v1/incidents')).incidents;
  const status = (name: string) => scalar(db, 'SELECT status FROM checks WHERE name = ?', text, name);
  const lastRun = (name: string) =>
    scalar(db, 'SELECT last_run_at FROM checks WHERE name = ?', nullable(int), name);
  /** Moves the clock to `ms` later and waits for that moment's runs of `names` to be stored. */
  const runsAt = async (ms: number, ...names: string[]) => {
    await clock.advance(ms);
    const at = clock.now();
    await within(5000, `runs of ${names} at ${at}`, () => names.every((n) => (lastRun(n) ?? 0) >= at));
    await server.checks.engine.flush();
  };
  const reload = async (text: string) => {
    writeFileSync(file, text);
    server.deps.config.reload();
    await server.checks.engine.reconcile();
  };

  await reload(pg);
  await runsAt(0, 'pg');
  await runsAt(10_000, 'pg');
  assert.equal(status('pg'), 'down');
  const [first] = await incidents();
  assert.equal(first?.state, 'open');
  const id = scalar(db, "SELECT id FROM checks WHERE name = 'pg'", text);

  await reload('');
  assert.equal((await incidents())[0]?.state, 'resolved', 'removing the check resolved it');

  await clock.advance(60_000);
  await reload(pg + shop);
  assert.equal(scalar(db, "SELECT id FROM checks WHERE name = 'pg'", text), id, 'the same check');
  assert.equal(status('pg'), 'unknown', 'its status starts afresh');
  await runsAt(0, 'pg', 'home');
  assert.equal(
    (await incidents()).filter((i) => i.state === 'open').length,
    0,
    'one failed run opens nothing',
  );
  await runsAt(10_000, 'pg');
  assert.equal(status('pg'), 'down');
  const open = (await incidents()).filter((i) => i.state === 'open');
  assert.equal(open.length, 1, 'the second failed run opens an incident');
  assert.notEqual(open[0]!.id, first!.id);
  assert.deepEqual(open[0]!.services, ['db']);

  await runsAt(20_000, 'home');
  assert.equal(status('home'), 'down');
  assert.deepEqual(
    (await incidents()).filter((i) => i.state === 'open').map((i) => i.id),
    [open[0]!.id],
    "the dependent service's check joins it",
  );
  const read = await get<IncidentRead>(`/api/v1/incidents/${open[0]!.id}`);
  assert.deepEqual(
    read.alerts.map((a) => [a.name, a.impact, a.recoveredAt]),
    [
      ['pg', false, null],
      ['home', true, null],
    ],
  );
});
