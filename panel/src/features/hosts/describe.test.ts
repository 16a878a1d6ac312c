import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentInfo } from '../../../../protocol/hosts.ts';
import { ApiError } from '../../lib/api.ts';
import { Invalid } from '../../lib/form.ts';
import {
  agentStateOf,
  clockNote,
  conflictText,
  mountsOf,
  mountsText,
  outdatedNote,
  serviceNameFor,
  thresholdText,
  updateNote,
} from './describe.ts';
import { alertsBody, mountError } from './thresholds.ts';

const agent: AgentInfo = {
  version: '1.2.0',
  protocol: 1,
  capabilities: ['ping', 'headers'],
  hostname: 'web-1',
  os: 'Debian GNU/Linux 12',
  kernel: '6.1.0',
  arch: 'x64',
  cores: 4,
  firstSeen: Date.UTC(2026, 0, 1),
  lastSeen: Date.UTC(2026, 0, 1, 9),
  connected: true,
  current: true,
};

test('an agent is connected, silent since its last frame, or not there yet', () => {
  assert.equal(agentStateOf(agent).state, 'connected');
  const silent = agentStateOf({ ...agent, connected: false });
  assert.equal(silent.state, 'silent');
  assert.match(silent.detail, /^silent since .+ ago\)$/);
  assert.deepEqual(agentStateOf(null).state, 'none');
});

test('an agent without a capability of this server is told to update, naming what it cannot run', () => {
  assert.equal(outdatedNote(agent), null);
  assert.equal(outdatedNote(null), null);
  const note = outdatedNote({ ...agent, version: '0.1.0', capabilities: ['headers'] });
  assert.match(String(note), /version 0\.1\.0\) is too old for ping checks: update it/);
  assert.match(
    String(outdatedNote({ ...agent, capabilities: [] })),
    /ping checks and checks with request headers/,
  );
});

test('an agent that runs another build than mon serves has an update, with both versions and the way: a restart', () => {
  assert.equal(updateNote(agent), null);
  assert.equal(updateNote(null), null);
  assert.equal(updateNote({ ...agent, current: null }), null, 'mon cannot tell');
  const note = updateNote({
    ...agent,
    version: '0.1.0+0123456789ab',
    current: false,
    update: { version: '0.1.0+ba9876543210' },
  });
  assert.equal(note?.short, 'Update available');
  assert.match(
    String(note?.detail),
    /runs version 0\.1\.0\+0123456789ab; mon serves 0\.1\.0\+ba9876543210\. Restart it to update it/,
  );
  assert.doesNotMatch(String(note?.detail), /install commands again/);
  // Built before builds had a hash: its systemd unit may not download at each start.
  const old = updateNote({
    ...agent,
    version: '0.1.0',
    current: false,
    update: { version: '0.1.0+ba9876543210' },
  });
  assert.match(String(old?.detail), /run the install commands again \(New token\) once/);
  // Run from the sources: a restart downloads nothing.
  const source = updateNote({
    ...agent,
    version: '0.1.0+source',
    current: false,
    update: { version: '0.1.0+ba9876543210' },
  });
  assert.match(String(source?.detail), /It runs from the sources: update its checkout/);
  assert.doesNotMatch(String(source?.detail), /Restart it/);
});

test("a host's clock more than a minute off mon's is named, behind or ahead", () => {
  assert.equal(clockNote(agent), null);
  assert.equal(clockNote(null), null);
  assert.match(
    String(clockNote({ ...agent, clockOffsetMs: -600_000 })),
    /runs 10 min behind mon's: mon places/,
  );
  assert.match(
    String(clockNote({ ...agent, clockOffsetMs: 7_200_000 })),
    /runs 2 h ahead of mon's: synchronize/,
  );
});

test('check conflicts in words, by what holds the name', () => {
  assert.match(conflictText({ name: 'disk', with: 'file', host: null }), /^disk: a check of mon\.toml/);
  assert.match(conflictText({ name: 'disk', with: 'panel', host: null }), /made in the panel/);
  assert.match(conflictText({ name: 'disk', with: 'host', host: 'web-2' }), /checks\.toml of web-2 declared/);
  assert.match(conflictText({ name: 'disk', with: 'free', host: null }), /free again.*within an hour/);
});

test('thresholds: numbers, empty for off, mounts split on spaces, commas and lines', () => {
  const form = new FormData();
  for (const [k, v] of Object.entries({ cpu: '95', memory: ' ', swap: '', disk: '90.5', temperature: '80' }))
    form.set(k, v);
  form.set('ignoreMounts', '/boot, /mnt/backup\n/boot');
  assert.deepEqual(alertsBody(form), {
    cpu: 95,
    memory: null,
    swap: null,
    disk: 90.5,
    temperature: 80,
    ignoreMounts: ['/boot', '/mnt/backup'],
  });
  assert.equal(thresholdText(null, '%'), 'off');
  assert.equal(thresholdText(90, '%'), 'above 90%');
  assert.equal(thresholdText(85, '°C'), 'above 85 °C');
  assert.deepEqual(mountsOf('  '), []);
  // A space inside a mount point is written as /etc/fstab writes it, both ways.
  assert.deepEqual(mountsOf('/mnt/My\\040Drive /boot'), ['/mnt/My Drive', '/boot']);
  assert.equal(mountsText(['/mnt/My Drive', '/boot']), '/mnt/My\\040Drive /boot');
});

test('thresholds: a word for a limit or a relative mount is refused at its field before sending', () => {
  const form = new FormData();
  form.set('cpu', 'lots');
  form.set('ignoreMounts', '/boot boot');
  assert.throws(
    () => alertsBody(form),
    (e: unknown) =>
      e instanceof Invalid &&
      /must be a number/.test(String(e.fields.cpu)) &&
      e.fields.ignoreMounts === 'boot: must be an absolute mount path such as /boot',
  );
});

test("the server's 422 about one mount lands at the mounts field, naming the mount", () => {
  const error = new ApiError(422, 'invalid', 'ignoreMounts[1]: must be an absolute mount path', null);
  assert.deepEqual(mountError(error, ['/boot', 'x'])?.fields, {
    ignoreMounts: 'x: must be an absolute mount path',
  });
  assert.equal(mountError(new ApiError(422, 'invalid', 'cpu: too big', null), []), null);
  assert.equal(mountError(new Error('x'), []), null);
});

test("a discovered unit's service is named without .service", () => {
  assert.equal(serviceNameFor({ kind: 'unit', name: 'nginx.service' }), 'nginx');
  assert.equal(serviceNameFor({ kind: 'container', name: 'shop.service' }), 'shop.service');
});
