import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY, MINUTE } from '../../protocol/durations.ts';
import type { CheckDetail, Created, ServiceRead } from '../../protocol/reads.ts';
import { FakeClock } from '../clock.ts';
import { int, scalar } from '../store/rows.ts';
import { checkServer } from './testkit.ts';

const T0 = Date.UTC(2026, 0, 1);
const web = { name: 'home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/', everyMs: MINUTE };

test('time when mon was not running is no data: in the uptime spans and as a gap in the run bars', async (t) => {
  const first = await checkServer({ clock: new FakeClock(T0) });
  const { id } = (await first.inject('POST', '/api/v1/checks', web)).body as Created;
  await first.clock.advance(10 * MINUTE);
  await first.engine.flush();
  const alive = () =>
    scalar(first.server.deps.store.read, 'SELECT max(alive_at) AS alive_at FROM mon_running', int);
  assert.equal(alive(), T0 + 10 * MINUTE, 'the running record moves on every minute');
  await first.server.close();

  // Two hours later mon starts again on the same data; the check runs for 10 more minutes.
  const restart = T0 + 130 * MINUTE;
  const second = await checkServer({ clock: new FakeClock(restart), dataDir: first.server.dataDir });
  t.after(() => second.server.dispose());
  await second.clock.advance(10 * MINUTE);
  await second.engine.flush();

  const detail = (await second.inject('GET', `/api/v1/checks/${id}/detail`)).body as CheckDetail;
  const gap = { from: T0 + 10 * MINUTE, to: restart };
  assert.deepEqual(detail.gaps, [gap]);
  const before = detail.beats.filter((b) => b.ts <= gap.from).length;
  const after = detail.beats.filter((b) => b.ts >= gap.to).length;
  assert.equal(before, 11, 'runs at 0, 1, … 10 min');
  assert.equal(before + after, detail.beats.length, 'no run inside the gap');
  assert.ok(after >= 9);
  // Every run passed: 100% of what was measured, and the span says what that was.
  assert.equal(detail.uptime?.day, 100);
  const measured = { since: T0, noDataMs: 120 * MINUTE, maintenanceMs: 0 };
  assert.deepEqual(detail.uptimeSpan, { day: measured, month: measured, year: measured });

  const service = (await second.inject('GET', '/api/v1/services/shop')).body as ServiceRead;
  assert.deepEqual(service.uptimeSpan.year, measured);
});

test('a restart of seconds is no gap; a window older than the check has no since', async (t) => {
  const first = await checkServer({ clock: new FakeClock(T0) });
  const { id } = (await first.inject('POST', '/api/v1/checks', web)).body as Created;
  await first.clock.advance(2 * DAY);
  await first.server.close();
  const second = await checkServer({
    clock: new FakeClock(T0 + 2 * DAY + 5000),
    dataDir: first.server.dataDir,
  });
  t.after(() => second.server.dispose());
  await second.clock.advance(5 * MINUTE);
  await second.engine.flush();
  const detail = (await second.inject('GET', `/api/v1/checks/${id}/detail`)).body as CheckDetail;
  assert.deepEqual(detail.gaps, []);
  assert.deepEqual(
    detail.uptimeSpan.day,
    { since: null, noDataMs: 0, maintenanceMs: 0 },
    'the whole 24 h were measured',
  );
  assert.deepEqual(detail.uptimeSpan.month, { since: T0, noDataMs: 0, maintenanceMs: 0 });
});
