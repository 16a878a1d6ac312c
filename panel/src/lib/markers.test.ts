import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeRow, DeployRow } from '../../../protocol/deploys.ts';
import type { TimelineRow } from '../../../protocol/incidents.ts';
import { externalHref } from './links.ts';
import { markersOf, timelineMarkers } from './markers.ts';

const deploy: DeployRow = {
  id: 1,
  ts: 300,
  service: 'shop',
  version: 'v2.4.0',
  by: 'ci',
  url: 'https://ci.example/runs/42',
  description: null,
  sources: ['api'],
  host: null,
};
const change = (ts: number, over: Partial<ChangeRow>): ChangeRow => ({
  id: ts,
  ts,
  kind: 'change',
  what: 'DNS moved',
  service: null,
  host: null,
  by: null,
  url: null,
  description: null,
  ...over,
});

test('deploys and changes become marks in time order, saying what and where', () => {
  const marks = markersOf(
    [deploy],
    [
      change(400, {}),
      change(100, { kind: 'push', what: 'push to main: fix', service: 'shop', by: 'ann' }),
      change(200, { host: 'web-1', what: 'kernel update' }),
    ],
  );
  assert.deepEqual(
    marks.map((m) => [m.ts, m.kind, m.label, m.by]),
    [
      [100, 'push', 'push shop: push to main: fix', 'ann'],
      [200, 'change', 'change web-1: kernel update', null],
      [300, 'deploy', 'deploy shop v2.4.0', 'ci'],
      [400, 'change', 'change: DNS moved', null],
    ],
  );
});

test("an incident's timeline gives marks for its deploys, changes and pushes only", () => {
  const row = (ts: number, kind: TimelineRow['kind'], title: string): TimelineRow => ({
    ts,
    kind,
    title,
    detail: null,
    check: null,
    service: 'shop',
    host: null,
    by: 'ci',
    url: null,
  });
  const marks = timelineMarkers([
    row(5, 'opened', 'opened'),
    row(3, 'deploy', 'v2'),
    row(4, 'push', 'main'),
    row(6, 'acknowledged', 'ann'),
  ]);
  assert.deepEqual(
    marks.map((m) => [m.ts, m.kind, m.label]),
    [
      [3, 'deploy', 'v2'],
      [4, 'push', 'main'],
    ],
  );
});

test('only http and https links given by deploys and changes are followed', () => {
  assert.equal(externalHref('https://ci.example/runs/42'), 'https://ci.example/runs/42');
  assert.equal(externalHref('http://ci.internal/1'), 'http://ci.internal/1');
  assert.equal(externalHref('javascript:alert(1)'), null);
  assert.equal(externalHref('data:text/html,hi'), null);
  assert.equal(externalHref('not a url'), null);
  assert.equal(externalHref(null), null);
});
