import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistoryItem } from '../../../../protocol/reads.ts';
import { foldHistory } from './fold.ts';

const failure = (ts: number, detail: string, status: 'down' | 'degraded' = 'down'): HistoryItem => ({
  ts,
  kind: 'failure',
  status,
  title: status,
  detail,
  latencyMs: null,
});
const change = (ts: number): HistoryItem => ({
  ts,
  kind: 'change',
  status: 'down',
  title: 'down',
  detail: '',
  latencyMs: null,
});

/** Each row as `fold:<count>` or `<kind>:<ts>`. */
const shape = (items: HistoryItem[]) =>
  foldHistory(items).map((r) =>
    r.kind === 'fold' ? `fold:${r.runs.length}` : `${r.item.kind}:${r.item.ts}`,
  );

test('consecutive failed runs with the same detail fold; a change or another detail ends the fold', () => {
  const items = [
    failure(90, '500 Internal Server Error'),
    failure(80, '500 Internal Server Error'),
    failure(70, '500 Internal Server Error'),
    change(60),
    failure(60, '500 Internal Server Error'),
    failure(50, 'timeout'),
    failure(40, '500 Internal Server Error'),
    failure(30, '500 Internal Server Error', 'degraded'),
  ];
  assert.deepEqual(shape(items), [
    'fold:3',
    'change:60',
    'failure:60',
    'failure:50',
    'failure:40',
    'failure:30',
  ]);
  const fold = foldHistory(items)[0]!;
  assert.ok(fold.kind === 'fold');
  assert.deepEqual(
    fold.runs.map((r) => r.ts),
    [90, 80, 70],
    'the runs of a fold, newest first',
  );
});

test('a fold spanning pages grows as older pages load; every run stays in exactly one row', () => {
  const first = [failure(90, 'x'), failure(80, 'x')];
  const second = [failure(70, 'x'), change(60)];
  assert.deepEqual(shape(first), ['fold:2']);
  const rows = foldHistory([...first, ...second]);
  assert.deepEqual(shape([...first, ...second]), ['fold:3', 'change:60']);
  const count = rows.reduce((n, r) => n + (r.kind === 'fold' ? r.runs.length : 1), 0);
  assert.equal(count, 4);
  assert.deepEqual(shape([]), []);
});
