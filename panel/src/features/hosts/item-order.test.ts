import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerRow, DiscoveredItem, UnitRow } from '../../../../protocol/hosts.ts';
import { itemWords, matches, orderDiscovered, orderItems } from './item-order.ts';

const container = (name: string, over: Partial<ContainerRow> = {}): ContainerRow => ({
  name,
  image: `${name}:1`,
  state: 'running',
  health: null,
  restarts: 0,
  exitCode: null,
  startedAt: 1,
  cpu: 1,
  memory: 2 ** 20,
  service: null,
  updatedAt: 1,
  ...over,
});

const unit = (name: string, over: Partial<UnitRow> = {}): UnitRow => ({
  name,
  state: 'active',
  subState: 'running',
  restarts: 0,
  cpu: 1,
  memory: 2 ** 20,
  service: null,
  updatedAt: 1,
  ...over,
});

const names = (rows: { name: string }[]) => rows.map((r) => r.name);

test('containers in trouble come first, then the busiest by CPU, then by memory, then by name', () => {
  const rows = [
    container('a-idle', { cpu: 0 }),
    container('b-exited-ok', { state: 'exited', exitCode: 0, cpu: null }),
    container('c-busy', { cpu: 80 }),
    container('d-unhealthy', { health: 'unhealthy', cpu: 2 }),
    container('e-fat', { cpu: 0, memory: 2 ** 30 }),
    container('f-crashed', { state: 'exited', exitCode: 137, cpu: null, memory: null }),
    container('g-restarting', { state: 'restarting', cpu: 0 }),
    container('h-dead', { state: 'dead', cpu: null }),
    container('i-no-numbers', { cpu: null, memory: null }),
    container('a-idle-too', { cpu: 0 }),
  ];
  assert.deepEqual(names(orderItems(rows)), [
    'd-unhealthy',
    'g-restarting',
    'h-dead',
    'f-crashed',
    'c-busy',
    'e-fat',
    'a-idle',
    'a-idle-too',
    'b-exited-ok',
    'i-no-numbers',
  ]);
  assert.equal(rows[0]?.name, 'a-idle', 'the rows given are left as they were');
});

test('units failed or restarting by systemd come first, then by CPU and memory', () => {
  const rows = [
    unit('a.service', { cpu: 3 }),
    unit('b.service', { state: 'failed', subState: 'failed', cpu: null, memory: null }),
    unit('c.service', { cpu: 9 }),
    unit('d.service', { state: 'activating', subState: 'auto-restart', cpu: 0 }),
    unit('e.service', { state: 'inactive', subState: 'dead', cpu: null, memory: null }),
  ];
  assert.deepEqual(names(orderItems(rows)), [
    'd.service',
    'b.service',
    'c.service',
    'a.service',
    'e.service',
  ]);
});

test('discovered items: the newest first, then by name', () => {
  const item = (name: string, firstSeen: number): DiscoveredItem => ({
    id: name.padEnd(16, '0'),
    host: 'h',
    kind: 'container',
    name,
    image: null,
    state: 'running',
    firstSeen,
  });
  assert.deepEqual(names(orderDiscovered([item('old', 1), item('b', 5), item('a', 5)])), ['a', 'b', 'old']);
});

test('the filter finds an item by part of its name, image, state or service, ignoring case', () => {
  const row = container('shop-api', { image: 'registry/shop:2.4', service: 'Shop' });
  for (const text of ['API', 'registry/', 'running', 'shop', '  shop-a ', '']) {
    assert.ok(matches(text, itemWords(row)), text);
  }
  assert.ok(!matches('redis', itemWords(row)));
  assert.ok(matches('auto-restart', itemWords(unit('x.service', { subState: 'auto-restart' }))));
});
