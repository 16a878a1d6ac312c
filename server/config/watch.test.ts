import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Log } from '../log.ts';
import { tempDir } from '../testing.ts';
import type { ConfigService, LiveConfig } from './service.ts';
import { createFileConfig } from './watch.ts';

/** Polls `condition` every 20 ms for at most `ms`; fails with `what` when it never holds. */
async function within(ms: number, what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const checkText = (name: string) => `[[check]]\nname = "${name}"\nservice = "shop"\nping = "shop.example"\n`;
const names = (config: ConfigService) => config.current().checks.map((c) => c.body.name);

function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

test('reloads within 2 s after a plain write and after a write-temp-then-rename save', async (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  writeFileSync(path, checkText('one'));
  const config = createFileConfig({ path, env: {}, log: recordingLog() });
  t.after(() => {
    config.close();
    remove();
  });
  assert.deepEqual(names(config), ['one']);
  const seen: LiveConfig[] = [];
  config.onChange((c) => seen.push(c));

  writeFileSync(path, checkText('two'));
  await within(2000, 'plain write seen', () => names(config)[0] === 'two');
  assert.equal(seen.length, 1);

  writeFileSync(join(dir, '.mon.toml.swp'), checkText('three'));
  renameSync(join(dir, '.mon.toml.swp'), path);
  await within(2000, 'rename save seen', () => names(config)[0] === 'three');
  assert.equal(seen.length, 2);
  assert.equal(config.error(), null);
});

test('a bad file keeps the last good configuration and shows the error; fixing it clears the error', async (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  writeFileSync(path, checkText('good'));
  const log = recordingLog();
  const config = createFileConfig({ path, env: { SECRET: 'hunter2' }, log });
  t.after(() => {
    config.close();
    remove();
  });
  let changes = 0;
  config.onChange(() => changes++);

  writeFileSync(path, `${checkText('good')}[[alert]]\ntype = "telegram"\nbot_token = "\${SECRET}"\n`);
  await within(2000, 'error shown', () => config.error() !== null);
  assert.equal(config.error(), 'alert[0].chat_id: required for telegram alerts');
  assert.deepEqual(names(config), ['good']);
  assert.equal(changes, 0);
  assert.ok(log.lines.some((l) => l.startsWith('error config file rejected')));
  assert.ok(!log.lines.join('\n').includes('hunter2'), 'secret value in the log');

  writeFileSync(
    path,
    `${checkText('fixed')}[[alert]]\ntype = "telegram"\nbot_token = "\${SECRET}"\nchat_id = 1\n`,
  );
  await within(2000, 'fixed file applied', () => config.error() === null);
  assert.deepEqual(names(config), ['fixed']);
  assert.equal(config.current().alerts[0]?.settings.secret, 'hunter2');
  assert.equal(changes, 1);
  assert.ok(!log.lines.join('\n').includes('hunter2'), 'secret value in the log');
});

test('a missing file is empty; a file created later is loaded; a deleted file empties the configuration', async (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  const config = createFileConfig({ path, env: {}, log: recordingLog() });
  t.after(() => {
    config.close();
    remove();
  });
  assert.deepEqual(names(config), []);
  assert.equal(config.error(), null);

  writeFileSync(path, checkText('late'));
  await within(2000, 'created file loaded', () => names(config)[0] === 'late');
  rmSync(path);
  await within(2000, 'deleted file emptied', () => names(config).length === 0);
  assert.equal(config.error(), null);
});

test('a bad file at start gives an empty configuration and the error', (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  writeFileSync(path, 'check = [');
  const config = createFileConfig({ path, env: {}, log: recordingLog() });
  t.after(() => {
    config.close();
    remove();
  });
  assert.deepEqual(names(config), []);
  assert.match(config.error() ?? '', /^line 1, column \d+: /);
});

test('reload() retries a file rejected for a panel collision once the panel check is gone', (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  writeFileSync(path, checkText('api'));
  let panel = [{ name: 'api', source: 'panel' as const }];
  const config = createFileConfig({ path, env: {}, log: recordingLog(), names: () => ({ checks: panel }) });
  t.after(() => {
    config.close();
    remove();
  });
  assert.match(config.error() ?? '', /collides with the panel check "api"/);
  panel = [];
  config.reload();
  assert.equal(config.error(), null);
  assert.deepEqual(names(config), ['api']);
});

test('the stat poll alone sees a save within 2 s', async (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  writeFileSync(path, checkText('one'));
  const config = createFileConfig({ path, env: {}, log: recordingLog(), fsWatch: false });
  t.after(() => {
    config.close();
    remove();
  });
  writeFileSync(path, checkText('second'));
  await within(2000, 'poll saw the write', () => names(config)[0] === 'second');
  writeFileSync(join(dir, 'next'), checkText('third one'));
  renameSync(join(dir, 'next'), path);
  await within(2000, 'poll saw the rename', () => names(config)[0] === 'third one');
});
