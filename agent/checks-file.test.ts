import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../server/testing.ts';
import { declarationOf, parseChecksFile, readChecksFile } from './checks-file.ts';

const example = `
[[check]]
name = "disk-free"
service = "storage"
command = "df --output=pcent / | tail -1"
from = "web-1"
every = "5m"
timeout = "30s"

[[check]]
name = "backup-age"
service = "backups"
command = "/usr/local/bin/backup-age"
from = "web-1"

[[check]]
name = "queue"
service = "shop"
command = "redis-cli llen jobs"
from = "db-1"
`;

test('each [[check]] of checks.toml, with every and timeout as durations and their defaults', () => {
  const file = parseChecksFile(example);
  assert.deepEqual(file.problems, []);
  assert.deepEqual(file.checks, [
    {
      name: 'disk-free',
      service: 'storage',
      command: 'df --output=pcent / | tail -1',
      everyMs: 300_000,
      timeoutMs: 30_000,
      from: 'web-1',
    },
    {
      name: 'backup-age',
      service: 'backups',
      command: '/usr/local/bin/backup-age',
      everyMs: 60_000,
      timeoutMs: 10_000,
      from: 'web-1',
    },
    {
      name: 'queue',
      service: 'shop',
      command: 'redis-cli llen jobs',
      everyMs: 60_000,
      timeoutMs: 10_000,
      from: 'db-1',
    },
  ]);
});

test('a host declares only the checks whose from names it', () => {
  const file = parseChecksFile(example);
  assert.deepEqual(
    declarationOf(file, 'web-1').checks.map((c) => c.name),
    ['disk-free', 'backup-age'],
  );
  assert.deepEqual(declarationOf(file, 'db-1').checks, [
    { name: 'queue', service: 'shop', command: 'redis-cli llen jobs', everyMs: 60_000, timeoutMs: 10_000 },
  ]);
  assert.deepEqual(declarationOf(file, 'mail-1'), { checks: [], problems: [] });
});

test('a table that cannot be used is left out and described; the others stay', () => {
  const file = parseChecksFile(`
[[check]]
name = "fast"
service = "s"
command = "true"
from = "web-1"
every = "5s"

[[check]]
name = "no-from"
service = "s"
command = "true"

[[check]]
name = "slow"
service = "s"
command = "true"
from = "web-1"
every = "30s"
timeout = "1m"

[[check]]
name = "typo"
service = "s"
command = "true"
from = "web-1"
evry = "1m"

[[check]]
name = "when"
service = "s"
command = "true"
from = "web-1"
every = "often"

[[check]]
name = "ok"
service = "s"
command = "true"
from = "web-1"

[[check]]
name = "ok"
service = "s"
command = "false"
from = "web-1"

[[check]]
name = "elsewhere"
service = "s"
command = "true"
from = "db-1"
every = "1s"

[settings]
x = 1
`);
  assert.deepEqual(
    file.checks.map((c) => c.name),
    ['ok'],
  );
  const web = declarationOf(file, 'web-1');
  assert.deepEqual(web.problems, [
    'settings: unknown table (checks.toml has [[check]] tables only)',
    'check[0] (fast) every: must be at least 10s',
    'check[1] (no-from) from: required',
    'check[2] (slow) timeout: must be at most every (30s)',
    'check[3] (typo) evry: unknown field',
    'check[4] (when) every: must be a duration such as "30s", "5m" or "1h"',
    'check[6] (ok): another check of web-1 is named ok',
  ]);
  // Another host's table is that host's problem.
  assert.deepEqual(declarationOf(file, 'db-1').problems, [
    'settings: unknown table (checks.toml has [[check]] tables only)',
    'check[1] (no-from) from: required',
    'check[7] (elsewhere) every: must be at least 10s',
  ]);
});

test('a file that is not TOML is one problem; a missing file is no checks; an unreadable one a problem', async () => {
  assert.deepEqual(parseChecksFile('[[check]\nname = 1'), {
    checks: [],
    problems: [{ from: null, text: 'line 1, column 9: expected end of table array declaration' }],
  });
  const { dir, remove } = tempDir('mon-checks-');
  try {
    assert.deepEqual(await readChecksFile(join(dir, 'checks.toml')), { checks: [], problems: [] });
    const path = join(dir, 'checks.toml');
    writeFileSync(path, example);
    assert.equal((await readChecksFile(path)).checks.length, 3);
    // A directory where the file should be (unreadable whoever runs the test).
    assert.deepEqual(await readChecksFile(dir), {
      checks: [],
      problems: [{ from: null, text: `${dir}: cannot be read (EISDIR)` }],
    });
  } finally {
    remove();
  }
});
