import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../store/db.ts';
import { statement } from '../store/statements.ts';
import { graphOf, serviceGraph } from './graph.ts';
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

test('hosts linked through the API join those of the file; the graph follows the stored links', () => {
  const graph = serviceGraph(
    [service('shop', [], ['web1'])],
    [
      { service: 'shop', host: 'web1' },
      { service: 'shop', host: 'web2' },
      { service: 'blog', host: 'web3' },
    ],
  );
  assert.deepEqual(graph.hostsOf('shop'), ['web1', 'web2']);
  assert.deepEqual(graph.hostsOf('blog'), ['web3']);
  assert.deepEqual(graph.servicesOn('web1'), ['shop']);
  assert.deepEqual(graph.servicesOn('web9'), []);
  const twice = serviceGraph([service('shop', [], ['web1', 'web1']), service('api', [], ['web1'])]);
  assert.deepEqual(twice.hostsOf('shop'), ['web1'], 'a host listed twice is one host');
  assert.deepEqual(twice.servicesOn('web1'), ['api', 'shop'], 'sorted');

  const db = new DatabaseSync(':memory:');
  migrate(db);
  const services = [service('shop', [], ['web1'])];
  const before = graphOf(db, services);
  assert.equal(graphOf(db, services), before, 'built once while nothing changed');
  statement(db, 'INSERT INTO service_hosts (service, host) VALUES (?, ?)').run('shop', 'web2');
  assert.deepEqual(graphOf(db, services).hostsOf('shop'), ['web1', 'web2']);
});
