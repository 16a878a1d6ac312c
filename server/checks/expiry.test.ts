import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY } from '../../protocol/durations.ts';
import { observeExpiry } from './expiry.ts';
import { newRecord } from './manage.ts';

const now = Date.UTC(2026, 5, 1);

function titlesFor(kind: 'certificate' | 'domain', daysLeft: number[]): string[] {
  const target = kind === 'domain' ? 'example.com' : 'https://example.com';
  const rec = newRecord(
    'c1',
    { name: 'x', service: 's', kind: kind === 'domain' ? 'domain' : 'http', target },
    now,
    false,
    null,
  );
  const titles: string[] = [];
  for (const days of daysLeft) {
    observeExpiry(rec, { kind, expires: now + days * DAY }, now, (_s, title) => titles.push(title));
  }
  return titles;
}

test('a domain registration is expiring within 30 days, a certificate within 14, as their runners say', () => {
  assert.deepEqual(titlesFor('domain', [40]), []);
  assert.deepEqual(titlesFor('domain', [25]), ['domain registration expires in 25 days']);
  assert.deepEqual(titlesFor('certificate', [25]), []);
  assert.deepEqual(titlesFor('certificate', [13]), ['certificate expires in 13 days']);
  assert.deepEqual(titlesFor('certificate', [-1]), ['certificate expired']);
});

test('each expiry change records the date it saw, renewals too', () => {
  const rec = newRecord(
    'c1',
    { name: 'x', service: 's', kind: 'http', target: 'https://example.com' },
    now,
    false,
    null,
  );
  const seen: [string, number][] = [];
  const record = (_s: null, title: string, _detail: string, expires: number) => seen.push([title, expires]);
  observeExpiry(rec, { kind: 'certificate', expires: now + 10 * DAY }, now, record);
  observeExpiry(rec, { kind: 'certificate', expires: now - DAY }, now, record);
  observeExpiry(rec, { kind: 'certificate', expires: now + 90 * DAY }, now, record);
  assert.deepEqual(seen, [
    ['certificate expires in 10 days', now + 10 * DAY],
    ['certificate changed', now - DAY],
    ['certificate expired', now - DAY],
    ['certificate renewed', now + 90 * DAY],
  ]);
});
