import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { type LiveKey, liveKeys } from '../../../protocol/live.ts';
import { accountKeys } from '../features/accounts/keys.ts';
import { analyticsKeys } from '../features/analytics/keys.ts';
import { checkKeys } from '../features/checks/keys.ts';
import { incidentKeys } from '../features/incidents/keys.ts';
import { overviewKeys } from '../features/overview/keys.ts';
import { serviceKeys } from '../features/services/keys.ts';
import { authKey } from '../lib/session.ts';
import { eventKeys, invalidateKeys } from './live.ts';

/**
 * What the panel has read: the services list and two services; check a (service web) with its detail,
 * definition and history; check b (service db); check c with only a history page (service not known
 * yet); check d known by its definition only (service web); and reads of other features.
 */
const cached: [QueryKey, unknown][] = [
  [authKey, { user: null }],
  [overviewKeys.read('24h'), {}],
  [overviewKeys.read('7d'), {}],
  [overviewKeys.warnings, {}],
  [serviceKeys.list, { services: [] }],
  [serviceKeys.one('web'), {}],
  [serviceKeys.one('db'), {}],
  [checkKeys.detail('a', '24h'), { check: { service: 'web' } }],
  [checkKeys.detail('a', '7d'), { check: { service: 'web' } }],
  [checkKeys.definition('a'), { input: { service: 'web' } }],
  [checkKeys.history('a'), { pages: [] }],
  [checkKeys.pingUrl('a'), { url: 'https://mon.example/ping/btp_x', replaced: false }],
  [checkKeys.detail('b', '24h'), { check: { service: 'db' } }],
  [checkKeys.history('b'), { pages: [] }],
  [checkKeys.history('c'), { pages: [] }],
  [checkKeys.definition('d'), { input: { service: 'web' } }],
  [accountKeys.users, { users: [] }],
  [accountKeys.tokens, { tokens: [] }],
  [incidentKeys.list('30d'), { incidents: [] }],
  [incidentKeys.list('1y'), { incidents: [] }],
  [incidentKeys.one('1'), {}],
  [incidentKeys.one('2'), {}],
  [['drafts'], { drafts: [] }],
  [analyticsKeys.read(null, '24h'), {}],
  [analyticsKeys.read('shop.example', '7d'), {}],
  [analyticsKeys.list('shop.example', 'pages', '7d', { search: 'blog', limit: 100 }), {}],
];

/** The keys of the queries that `keys` marks for reloading, on a real QueryClient. */
function invalidated(keys: LiveKey[]): string[] {
  // gcTime Infinity: no timers are left behind to hold the test process open.
  const client = new QueryClient({ defaultOptions: { queries: { gcTime: Number.POSITIVE_INFINITY } } });
  for (const [key, data] of cached) client.setQueryData(key, data);
  invalidateKeys(client, keys);
  const out = client
    .getQueryCache()
    .getAll()
    .filter((q) => q.state.isInvalidated)
    .map((q) => JSON.stringify(q.queryKey))
    .sort();
  client.clear();
  return out;
}

const names = (...keys: QueryKey[]) => keys.map((k) => JSON.stringify(k)).sort();

test('`*` reloads everything', () => {
  assert.deepEqual(invalidated([liveKeys.all]), names(...cached.map(([key]) => key)));
  assert.deepEqual(
    invalidated([liveKeys.service('web'), liveKeys.all]),
    names(...cached.map(([key]) => key)),
  );
});

const overviewReads = [overviewKeys.read('24h'), overviewKeys.read('7d')];

test('`overview` reloads the overview of every range and the services list, not the warnings', () => {
  assert.deepEqual(invalidated([liveKeys.overview]), names(...overviewReads, serviceKeys.list));
});

test('`service:<name>` reloads that service, the list, the overview and the checks of that service', () => {
  assert.deepEqual(
    invalidated([liveKeys.service('web')]),
    names(
      ...overviewReads,
      serviceKeys.list,
      serviceKeys.one('web'),
      checkKeys.detail('a', '24h'),
      checkKeys.detail('a', '7d'),
      checkKeys.definition('a'),
      checkKeys.history('a'),
      // Its service is not known yet: reloading is the safe side.
      checkKeys.history('c'),
      // Known by its definition.
      checkKeys.definition('d'),
    ),
  );
  assert.deepEqual(
    invalidated([liveKeys.service('db')]),
    names(
      ...overviewReads,
      serviceKeys.list,
      serviceKeys.one('db'),
      checkKeys.detail('b', '24h'),
      checkKeys.history('b'),
      checkKeys.history('c'),
    ),
  );
});

test('a check moved between services is reached through both keys of the move', () => {
  const moved = invalidated([liveKeys.service('web'), liveKeys.service('db'), liveKeys.overview]);
  for (const key of [checkKeys.detail('a', '24h'), checkKeys.detail('b', '24h'), serviceKeys.one('db')]) {
    assert.ok(moved.includes(JSON.stringify(key)), JSON.stringify(key));
  }
  assert.ok(!moved.includes(JSON.stringify(checkKeys.pingUrl('a'))), 'the ping URL is not a read');
  assert.ok(!moved.includes(JSON.stringify(authKey)));
});

test('incidents reload the incident lists and the overview; one incident only itself; drafts their own', () => {
  assert.deepEqual(
    invalidated([liveKeys.incidents]),
    names(incidentKeys.list('30d'), incidentKeys.list('1y'), ...overviewReads),
  );
  assert.deepEqual(invalidated([liveKeys.incident('1')]), names(incidentKeys.one('1')));
  assert.deepEqual(invalidated([liveKeys.drafts]), names(['drafts']));
  assert.deepEqual(invalidated([]), []);
});

test('stored tracker events reload the analytics reads and their lists, nothing else', () => {
  assert.deepEqual(
    invalidated([liveKeys.analytics]),
    names(
      analyticsKeys.read(null, '24h'),
      analyticsKeys.read('shop.example', '7d'),
      analyticsKeys.list('shop.example', 'pages', '7d', { search: 'blog', limit: 100 }),
    ),
  );
});

test('a stream event gives its known keys; anything else gives none', () => {
  assert.deepEqual(eventKeys('{"invalidate":["service:web","overview"]}'), ['service:web', 'overview']);
  assert.deepEqual(eventKeys('{"invalidate":["host:db","*",7]}'), ['*']);
  assert.deepEqual(eventKeys('{"invalidate":["analytics"]}'), ['analytics']);
  assert.deepEqual(eventKeys('{"invalidate":"overview"}'), []);
  assert.deepEqual(eventKeys('{}'), []);
  assert.deepEqual(eventKeys('not json'), []);
});
