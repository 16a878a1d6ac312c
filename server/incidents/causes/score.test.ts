import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeployRow } from '../../../protocol/deploys.ts';
import { MINUTE } from '../../../protocol/durations.ts';
import { serviceGraph } from '../graph.ts';
import { fileService as service } from '../testkit.ts';
import { type Candidate, reachOf } from './candidates.ts';
import { CHANGE_TIME, EXPIRY_TIME, HOST_TIME, MAX_CAUSES, timeWeight } from './formula.ts';
import { rankCauses } from './score.ts';

const start = Date.UTC(2026, 5, 1, 12);

const graph = serviceGraph([service('shop', ['api'], ['web1']), service('api'), service('shop-eu')]);
const reach = reachOf({ services: ['shop'], hosts: [] }, graph);

const deploy = (
  id: number,
  at: number,
  version = `v${id}`,
  serviceName = 'shop',
  host: string | null = null,
): DeployRow => ({
  id,
  ts: start - at,
  service: serviceName,
  version,
  by: null,
  url: null,
  description: null,
  sources: ['agent'],
  host,
});
const deployCandidate = (d: DeployRow): Candidate => ({ kind: 'deploy', deploy: d, ranElsewhere: [] });

test('time: full weight within 5 minutes, halving every 30, nothing after the start or beyond 3 hours', () => {
  assert.equal(timeWeight(-1, CHANGE_TIME), 0);
  assert.equal(timeWeight(0, CHANGE_TIME), 1);
  assert.equal(timeWeight(5 * MINUTE, CHANGE_TIME), 1);
  assert.equal(timeWeight(35 * MINUTE, CHANGE_TIME), 0.5);
  assert.equal(timeWeight(65 * MINUTE, CHANGE_TIME), 0.25);
  assert.equal(timeWeight(180 * MINUTE + 1, CHANGE_TIME), 0);
  assert.equal(timeWeight(2 * 24 * 60 * MINUTE, EXPIRY_TIME), 0.5);
  assert.equal(timeWeight(7 * 24 * 60 * MINUTE + 1, EXPIRY_TIME), 0);
});

test('the worked example of docs/incidents.md', () => {
  const d = deploy(7, 25 * MINUTE, 'v2.4.0');
  const causes = rankCauses(
    [
      {
        kind: 'deploy',
        deploy: d,
        ranElsewhere: [{ id: 3, ts: start - 3 * 60 * MINUTE, service: 'shop-eu', version: 'v2.4.0' }],
      },
    ],
    reach,
    start,
  );
  assert.equal(causes.length, 1);
  assert.deepEqual(
    causes[0]!.factors.map((f) => [f.name, f.value, f.why]),
    [
      ['time', 0.63, '25 min before the start (full weight within 5 min, halving every 30 min)'],
      ['relation', 1, "shop is the incident's service"],
      ['kind', 0.8, 'a deploy: new code went live'],
      ['counter', 0.5, 'v2.4.0 ran on shop-eu for 3 h before the start without going down'],
    ],
  );
  assert.equal(causes[0]!.score, 0.252);
});

test('below 0.1 a candidate is not shown: no likely cause is better than a wrong one', () => {
  // A change bound to nothing: 0.4 × 0.6 = 0.24 at most; under 0.1 from about 43 minutes on.
  const change = (id: number, at: number): Candidate => ({
    kind: 'change',
    change: {
      id,
      ts: start - at,
      kind: 'change',
      what: `change ${id}`,
      service: null,
      host: null,
      by: null,
      url: null,
      description: null,
    },
  });
  assert.deepEqual(
    rankCauses([change(1, 40 * MINUTE), change(2, 45 * MINUTE)], reach, start).map((c) => [c.title, c.score]),
    [['Change: change 1', 0.107]],
  );
});

test('ties go to the closer change, then the lower id; the same candidates in any order rank the same', () => {
  const candidates = [
    // Other services' containers on shop's host: each weighs 0.8 × 0.8 within 5 minutes.
    deployCandidate(deploy(4, 2 * MINUTE, 'v1', 'cache', 'web1')),
    deployCandidate(deploy(9, 1 * MINUTE, 'v1', 'queue', 'web1')),
    deployCandidate(deploy(3, 1 * MINUTE, 'v1', 'mail', 'web1')),
  ];
  const expected = ['Deploy of mail v1', 'Deploy of queue v1', 'Deploy of cache v1'];
  assert.deepEqual(
    rankCauses(candidates, reach, start).map((c) => c.title),
    expected,
  );
  assert.deepEqual(
    rankCauses([...candidates].reverse(), reach, start).map((c) => c.title),
    expected,
  );
});

test(`at most ${MAX_CAUSES} causes, the best ones`, () => {
  const candidates = Array.from({ length: 8 }, (_, i) =>
    deployCandidate(deploy(i + 1, i * 10 * MINUTE, 'v1', `s${i}`, 'web1')),
  );
  const causes = rankCauses(candidates, reach, start);
  assert.equal(causes.length, MAX_CAUSES);
  assert.deepEqual(
    causes.map((c) => c.title),
    ['Deploy of s0 v1', 'Deploy of s1 v1', 'Deploy of s2 v1', 'Deploy of s3 v1', 'Deploy of s4 v1'],
  );
});

test('deploys of services the incident does not reach are no cause, wherever they come from', () => {
  assert.deepEqual(rankCauses([deployCandidate(deploy(1, MINUTE, 'v1', 'shop-eu'))], reach, start), []);
});

test('host events: weighed by their strongest event, fading over 15 minutes; a container of the service relates as the service', () => {
  const events = (kinds: ('restart' | 'oom')[], at: number) =>
    kinds.map((kind) => ({
      ts: start - at,
      kind,
      detail: kind === 'oom' ? 'killed for lack of memory' : 'restarted',
    }));
  const container = (
    subject: string,
    service: string | null,
    kinds: ('restart' | 'oom')[],
    at: number,
  ): Candidate => ({
    kind: 'container',
    host: 'web1',
    subject,
    service,
    events: events(kinds, at),
  });
  const causes = rankCauses(
    [
      container('shop-web', 'shop', ['restart', 'oom'], 20 * MINUTE),
      container('cron', null, ['restart', 'restart'], 5 * MINUTE),
      {
        kind: 'host',
        host: 'web9',
        subject: 'cpu',
        service: null,
        events: [{ ts: start, kind: 'threshold', detail: 'CPU above 90% for 5 minutes (99%)' }],
      },
    ],
    reach,
    start,
  );
  assert.deepEqual(
    causes.map((c) => [c.title, c.factors.map((f) => f.value)]),
    [
      // 1 × 0.8 (on shop's host) × 0.6 (restarted) = 0.48
      ['cron on web1 restarted 2 times', [1, 0.8, 0.6, 1]],
      // 0.5 (20 minutes: 15 past the first 5) × 1 (shop's own container) × 0.9 (killed for memory) = 0.45
      ['shop-web on web1 killed for memory', [0.5, 1, 0.9, 1]],
    ],
    'web9 is none of the incident’s hosts',
  );
  assert.equal(timeWeight(2 * 60 * MINUTE + 1, HOST_TIME), 0);
});
