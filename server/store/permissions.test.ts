import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createServer } from '../start.ts';
import { memoryLog, tempDir } from '../testing.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

async function start(dataDir: string) {
  const memory = memoryLog();
  const server = await createServer({
    dataDir,
    configPath: join(dataDir, 'mon.toml'),
    env: {},
    log: memory.log,
  });
  const warnings = () => memory.lines().filter((line) => line.level === 'warn');
  return { server, warnings };
}

test('a new data directory is created 0700, mon.db and its -wal and -shm files 0600', async () => {
  const parent = tempDir();
  const dataDir = join(parent.dir, 'nested', 'data');
  const { server, warnings } = await start(dataDir);
  try {
    await server.deps.store.writer.run((db) => db.exec('CREATE TABLE t (x)'));
    assert.equal(modeOf(dataDir), 0o700);
    for (const name of ['mon.db', 'mon.db-wal', 'mon.db-shm']) {
      const file = join(dataDir, name);
      assert.ok(existsSync(file), name);
      assert.equal(modeOf(file), 0o600, name);
    }
    assert.deepEqual(warnings(), []);
  } finally {
    await server.close();
    parent.remove();
  }
});

test('looser modes an operator set are kept and reported once at start', async () => {
  const parent = tempDir();
  const dataDir = join(parent.dir, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'mon.db'), '');
  chmodSync(join(dataDir, 'mon.db'), 0o640);
  const { server, warnings } = await start(dataDir);
  try {
    await server.deps.store.writer.run((db) => db.exec('CREATE TABLE t (x)'));
    assert.equal(modeOf(dataDir), 0o755);
    assert.equal(modeOf(join(dataDir, 'mon.db')), 0o640);
    const [warning, ...more] = warnings();
    assert.deepEqual(more, []);
    assert.match(String(warning?.message), /other users can read the data directory or database/);
    assert.deepEqual(warning?.files, [
      { path: dataDir, mode: '0755' },
      { path: join(dataDir, 'mon.db'), mode: '0640' },
    ]);
  } finally {
    await server.close();
    parent.remove();
  }
});
