import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Log } from '../log.ts';
import { tempDir, within } from '../testing.ts';
import type { ConfigService, LiveConfig } from './service.ts';
import { createFileConfig } from './watch.ts';

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

test('a bad file at start runs on the last good text, unless that no longer loads; a good file replaces it', (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  writeFileSync(path, 'check = [');
  let kept: string | null =
    `${checkText('kept')}[[check]]\nname = "pg"\nservice = "db"\ntcp = "\${DB}:5432"\n`;
  const lastGood = { read: () => kept, save: (text: string) => (kept = text) };
  const log = recordingLog();
  const withDb = createFileConfig({ path, env: { DB: 'db.internal' }, log, lastGood });
  const withoutDb = createFileConfig({ path, env: {}, log, lastGood });
  t.after(() => {
    withDb.close();
    withoutDb.close();
    remove();
  });
  assert.deepEqual([names(withDb), withDb.inForce()], [['kept', 'pg'], 'lastGood']);
  assert.match(withDb.error() ?? '', /^line 1, column \d+: /);
  assert.deepEqual([names(withoutDb), withoutDb.inForce()], [[], 'empty']);
  assert.ok(log.lines.some((l) => l.includes('the last good config no longer loads') && l.includes('DB')));

  writeFileSync(path, checkText('new'));
  withDb.reload();
  assert.deepEqual([names(withDb), withDb.inForce(), kept], [['new'], 'file', checkText('new')]);
});

test('a file unreadable at start runs on the last good text, and reading it again changes nothing in force', (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  mkdirSync(path); // read fails with EISDIR
  let kept: string | null = checkText('kept');
  const lastGood = { read: () => kept, save: (text: string) => (kept = text) };
  const config = createFileConfig({ path, env: {}, log: recordingLog(), lastGood });
  t.after(() => {
    config.close();
    remove();
  });
  assert.deepEqual([names(config), config.inForce()], [['kept'], 'lastGood']);
  assert.match(config.error() ?? '', /cannot read .*EISDIR/);
  kept = 'check = ['; // what the store holds no longer matters once started
  config.reload();
  assert.deepEqual([names(config), config.inForce()], [['kept'], 'lastGood']);
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

test('a file emptied or cut for a moment while it is saved is never applied; a file left empty is', async (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  const text = checkText('one') + checkText('two');
  writeFileSync(path, text);
  let reads = 0;
  const config = createFileConfig({ path, env: {}, log: recordingLog(), onStatus: () => reads++ });
  t.after(() => {
    config.close();
    remove();
  });
  let changes = 0;
  config.onChange(() => changes++);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  // An editor that truncates, then writes; `>` in a shell; a save cut in the middle of a table.
  writeFileSync(path, '');
  await pause(300);
  writeFileSync(path, text);
  await pause(300);
  writeFileSync(path, text.slice(0, text.length - 20));
  await pause(300);
  writeFileSync(path, text);
  await pause(1200);
  assert.equal(reads, 0, 'nothing was read as a new configuration');
  assert.equal(changes, 0);
  assert.deepEqual(names(config), ['one', 'two']);
  assert.equal(config.error(), null);

  writeFileSync(path, '');
  await within(2000, 'an empty file that stays is applied', () => names(config).length === 0);
  assert.equal(changes, 1);
});

test('every problem of a file rejected at start is logged and shown, and of one rejected on reload', async (t) => {
  const { dir, remove } = tempDir();
  const path = join(dir, 'mon.toml');
  const bad = `[server]\nurl = "ftp://x"\n${checkText('one')}every = "1s"\n[[alert]]\ntype = "telegram"\n`;
  const expected = [
    'server.url: must be an http:// or https:// URL',
    'check[0].every: must be at least 10s',
    'alert[0].bot_token: required for telegram alerts',
    'alert[0].chat_id: required for telegram alerts',
  ].join('\n');
  writeFileSync(path, bad);
  const log = recordingLog();
  const config = createFileConfig({ path, env: {}, log });
  t.after(() => {
    config.close();
    remove();
  });
  assert.equal(config.error(), expected);
  assert.ok(
    log.lines.some(
      (l) => l.startsWith('error config file rejected at start') && l.includes(JSON.stringify(expected)),
    ),
  );

  writeFileSync(path, checkText('one'));
  await within(2000, 'good file applied', () => config.error() === null);
  writeFileSync(path, bad);
  await within(2000, 'bad file rejected', () => config.error() !== null);
  assert.equal(config.error(), expected);
  assert.deepEqual(names(config), ['one'], 'the last good configuration stays');
});
