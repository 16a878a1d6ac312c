import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WindowRead } from '../../../../protocol/notify.ts';
import { Invalid } from '../../lib/form.ts';
import {
  editDraft,
  fromLocalInput,
  maintenanceText,
  newDraft,
  newWindowHref,
  scopeText,
  toBody,
  toLocalInput,
  whenText,
} from './model.ts';

const NOW = new Date(2026, 2, 10, 14, 30).getTime();
const HOUR = 3_600_000;

test('a link from a service page fills the form: kind, scope and name; start now for an hour', () => {
  const query = new URLSearchParams(newWindowHref('maintenance', 'shop api').split('?')[1]);
  assert.equal(newWindowHref('silence', 'shop'), '/settings/windows?new=silence&scope=service&name=shop');
  assert.equal(
    newWindowHref('silence', 'web-1', 'host'),
    '/settings/windows?new=silence&scope=host&name=web-1',
  );
  assert.equal(newDraft(new URLSearchParams('new=silence&scope=host&name=web-1'), 0).scope, 'host');
  const draft = newDraft(query, NOW);
  assert.deepEqual(
    {
      kind: draft.kind,
      scope: draft.scope,
      name: draft.name,
      startNow: draft.startNow,
      length: draft.length,
    },
    { kind: 'maintenance', scope: 'service', name: 'shop api', startNow: true, length: '1h' },
  );
  assert.deepEqual(toBody(draft, NOW), {
    scope: 'service',
    name: 'shop api',
    starts: NOW,
    ends: NOW + HOUR,
    reason: null,
  });
  // Unknown words in the link fall back to a silence of everything.
  const odd = newDraft(new URLSearchParams('new=party&scope=team'), NOW);
  assert.equal(odd.kind, 'silence');
  assert.equal(odd.scope, 'all');
});

test('the form becomes the API body: presets, a start time, an end time, the reason trimmed', () => {
  const base = newDraft(new URLSearchParams(), NOW);
  assert.deepEqual(toBody({ ...base, length: '4h', reason: '  upgrade ' }, NOW), {
    scope: 'all',
    name: null,
    starts: NOW,
    ends: NOW + 4 * HOUR,
    reason: 'upgrade',
  });
  const at = new Date(2026, 2, 11, 2, 0).getTime();
  assert.equal(
    toBody({ ...base, startNow: false, startAt: '2026-03-11T02:00', length: '1d' }, NOW).ends,
    at + 24 * HOUR,
  );
  assert.deepEqual(
    toBody({ ...base, scope: 'host', name: ' web1 ', length: 'until', until: '2026-03-10T18:15' }, NOW),
    { scope: 'host', name: 'web1', starts: NOW, ends: new Date(2026, 2, 10, 18, 15).getTime(), reason: null },
  );
});

test('what cannot be sent is an error at its field', () => {
  const base = newDraft(new URLSearchParams(), NOW);
  const fieldsOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof Invalid);
      return error.fields;
    }
    assert.fail('no error');
  };
  assert.deepEqual(
    fieldsOf(() => toBody({ ...base, scope: 'service', name: ' ' }, NOW)),
    { name: 'choose a service' },
  );
  assert.deepEqual(
    fieldsOf(() => toBody({ ...base, startNow: false, startAt: '' }, NOW)),
    { starts: 'give a date and time' },
  );
  assert.deepEqual(
    fieldsOf(() => toBody({ ...base, length: 'until', until: 'tomorrow' }, NOW)),
    {
      ends: 'give a date and time',
    },
  );
});

test('an existing window fills the form with its own times; lists say what and when in words', () => {
  const w: WindowRead = {
    id: '0123456789abcdef',
    scope: 'service',
    name: 'shop',
    starts: NOW - HOUR,
    ends: NOW + 2 * HOUR,
    reason: 'disk swap',
    createdBy: 'admin@example.com',
    createdAt: NOW - 2 * HOUR,
    active: true,
  };
  const draft = editDraft('maintenance', { ...w, starts: w.starts + 1234 });
  assert.equal(toBody(draft, NOW).starts, NOW - HOUR + 1234, 'an untouched time stays to the millisecond');
  assert.equal(
    toBody({ ...draft, startAt: '2026-03-10T13:00' }, NOW).starts,
    new Date(2026, 2, 10, 13).getTime(),
  );
  assert.deepEqual(toBody(editDraft('maintenance', w), NOW), {
    scope: 'service',
    name: 'shop',
    starts: NOW - HOUR,
    ends: NOW + 2 * HOUR,
    reason: 'disk swap',
  });
  assert.equal(fromLocalInput(toLocalInput(NOW)), NOW);
  assert.equal(scopeText(w), 'service shop');
  assert.equal(scopeText({ scope: 'all', name: null }), 'everything');
  assert.match(whenText(w, NOW), /^until .+ \(since .+\)$/);
  assert.match(whenText({ ...w, active: false }, NOW), /^.+ to .+$/);
  assert.match(
    maintenanceText({ until: NOW + HOUR, reason: 'disk swap' }, NOW),
    /^In maintenance until .+: disk swap$/,
  );
  assert.doesNotMatch(maintenanceText({ until: NOW + HOUR, reason: null }, NOW), /:\s*$/);
});
