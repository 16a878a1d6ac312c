import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Need, plan, testPackages } from './preflight.ts';

const need = (name: string): Need => testPackages.find((n) => n.package === name)!;
const chromium = need('chromium');
const prometheus = need('prometheus');

test('preflight with every package installed does nothing', () => {
  for (const root of [true, false]) {
    for (const apt of [true, false]) assert.deepEqual(plan([], { root, apt }), { action: 'none' });
  }
});

test('preflight as root with apt-get installs the missing packages, saying what and why in one line', () => {
  const decided = plan([chromium, prometheus], { root: true, apt: true });
  assert.equal(decided.action, 'install');
  if (decided.action !== 'install') return;
  assert.equal(
    decided.notice,
    "npm test: installing chromium prometheus with apt-get; the tests run chromium (the panel's browser tests), " +
      'promtool (lints the /metrics text)',
  );
  assert.ok(!decided.notice.includes('\n'));
  assert.deepEqual(decided.commands, [
    ['apt-get', 'update', '-qq', '-o', 'DPkg::Lock::Timeout=600'],
    [
      'apt-get',
      'install',
      '-y',
      '-qq',
      '--no-install-recommends',
      '-o',
      'DPkg::Lock::Timeout=600',
      'chromium',
      'prometheus',
    ],
  ]);
});

test('preflight without root stops, naming the one sudo command that installs the missing packages', () => {
  assert.deepEqual(plan([prometheus], { root: false, apt: true }), {
    action: 'stop',
    message:
      'npm test needs promtool (lints the /metrics text). Install them with:\n\n' +
      '  sudo apt-get install -y --no-install-recommends prometheus\n',
  });
  const noApt = plan([chromium, prometheus], { root: true, apt: false });
  assert.equal(noApt.action, 'stop');
  if (noApt.action !== 'stop') return;
  assert.match(noApt.message, /\n {2}apt-get install -y --no-install-recommends chromium prometheus\n/);
  assert.match(noApt.message, /elsewhere, install the same programs/);
});

test('preflight script: installed packages pass silently; a missing one without root stops with the command', () => {
  const script = join(import.meta.dirname, 'preflight.ts');
  const present = spawnSync(process.execPath, [script, 'openssl'], { encoding: 'utf8' });
  assert.equal(present.status, 0, present.stderr);
  assert.equal(present.stdout + present.stderr, '');
  // As root, run it as nobody so that it stops rather than installs.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const missing = spawnSync(
    process.execPath,
    [script, 'openssl', 'mon-no-such-package:mon-no-such-program'],
    {
      encoding: 'utf8',
      ...asNobody,
    },
  );
  assert.equal(missing.status, 1, missing.stderr);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /^npm test needs mon-no-such-program \(asked for\)\. Install them with:/);
  assert.match(missing.stderr, /\n {2}sudo apt-get install -y --no-install-recommends mon-no-such-package\n/);
});
