import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceGraph } from './graph.ts';
import { fileService as service } from './testkit.ts';

test('dependencies and dependents are followed through other services, each once, cycles included', () => {
  const graph = serviceGraph([
    service('shop', ['api'], ['web1']),
    service('api', ['db']),
    service('db', ['shop']),
    service('blog'),
  ]);
  assert.deepEqual(graph.dependencies('shop'), ['api', 'db']);
  assert.deepEqual(graph.dependents('db'), ['api', 'shop']);
  assert.deepEqual(graph.dependencies('blog'), []);
  assert.deepEqual(graph.dependents('unknown'), []);
  assert.equal(graph.dependsDirectly('shop', 'api'), true);
  assert.equal(graph.dependsDirectly('shop', 'db'), false);
  assert.deepEqual(graph.hostsOf('shop'), ['web1']);
  assert.deepEqual(graph.hostsOf('made-in-the-panel'), []);
});
