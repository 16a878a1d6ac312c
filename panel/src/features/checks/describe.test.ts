import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDate } from '../../lib/format.ts';
import { readOnlyReason, recoveryText, targetText, uptimeNote } from './describe.ts';

test('a check reads as its target; a heartbeat as its schedule', () => {
  assert.equal(targetText({ kind: 'tcp', target: 'db:5432', cron: null, everyMs: 60_000 }), 'db:5432');
  assert.equal(targetText({ kind: 'heartbeat', target: null, cron: null, everyMs: 86_400_000 }), 'every 1 d');
  assert.equal(
    targetText({ kind: 'heartbeat', target: null, cron: '0 3 * * *', everyMs: null }),
    'cron 0 3 * * *',
  );
});

test('checks from files are read-only, with the reason', () => {
  assert.equal(readOnlyReason({ managed: false, hostDefined: false }, null), null);
  assert.match(
    readOnlyReason({ managed: true, hostDefined: false }, null) ?? '',
    /^This check is defined in mon\.toml\./,
  );
  assert.match(
    readOnlyReason({ managed: false, hostDefined: true }, 'web1') ?? '',
    /checks\.toml on host web1\./,
  );
});

test('an uptime figure says what it covers: since when, how long without data, in maintenance', () => {
  const now = Date.UTC(2026, 0, 31, 12);
  const since = Date.UTC(2026, 0, 23, 9);
  const whole = { since: null, noDataMs: 0, maintenanceMs: 0 };
  assert.equal(uptimeNote(whole, now), undefined, 'the whole window');
  assert.match(uptimeNote({ ...whole, since }, now) ?? '', new RegExp(`^since .*${formatDate(since)}`));
  assert.equal(uptimeNote({ ...whole, noDataMs: 2 * 3_600_000 }, now), '2 h without data');
  assert.match(
    uptimeNote({ ...whole, since, noDataMs: 90 * 60_000 }, now) ?? '',
    / · 1 h 30 min without data$/,
  );
  assert.equal(uptimeNote({ ...whole, maintenanceMs: 4 * 3_600_000 }, now), '4 h of maintenance left out');
  assert.equal(
    uptimeNote({ ...whole, noDataMs: 60_000, maintenanceMs: 30 * 60_000 }, now),
    '1 min without data · 30 min of maintenance left out',
  );
});

test('a recovering check says when it counts as up', () => {
  const now = Date.UTC(2026, 0, 31, 12);
  assert.match(
    recoveryText({ since: now, upAt: now + 180_000 }, now),
    /^counts as up at .+ if runs keep passing$/,
  );
});
