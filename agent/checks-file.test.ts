import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { declareFrameSchema } from '../protocol/agent.ts';
import { tempDir } from '../server/testing.ts';
import {
  checksSummary,
  declarationOf,
  MAX_CHECKS_FILE_BYTES,
  parseChecksFile,
  readChecksFile,
} from './checks-file.ts';

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
      problems: [{ from: null, text: `${dir}: not read: a directory, not a regular file` }],
    });
  } finally {
    remove();
  }
});

test('a FIFO is refused at once, not waited on; a file over 1 MiB is refused unread', async () => {
  const { dir, remove } = tempDir('mon-checks-');
  const fifo = join(dir, 'fifo.toml');
  try {
    execFileSync('mkfifo', [fifo]);
    let timer: NodeJS.Timeout | undefined;
    const read = await Promise.race([
      readChecksFile(fifo),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('still waiting after 5 s'), 5000);
      }),
    ]);
    clearTimeout(timer);
    assert.deepEqual(read, {
      checks: [],
      problems: [{ from: null, text: `${fifo}: not read: a FIFO, not a regular file` }],
    });
    // Exactly 1 MiB is read: the example padded with a comment.
    const path = join(dir, 'checks.toml');
    writeFileSync(path, `${example}#${'x'.repeat(MAX_CHECKS_FILE_BYTES - example.length - 2)}\n`);
    assert.equal((await readChecksFile(path)).checks.length, 3);
    // 202 MiB (sparse: nothing written) is not read, let alone parsed.
    truncateSync(path, 202 * 1024 * 1024);
    assert.deepEqual(await readChecksFile(path), {
      checks: [],
      problems: [
        {
          from: null,
          text: `${path}: not read: 211812352 bytes, more than the 1 MiB (1048576 bytes) a checks file may have`,
        },
      ],
    });
  } finally {
    // A read left waiting on the FIFO (without the fix) is released, so that the test process ends.
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader: nothing waits.
    }
    remove();
  }
});

/** `count` tables of `from`, named `${prefix}-N`. */
function tables(count: number, from: string, prefix = 'c'): string {
  return Array.from(
    { length: count },
    (_, i) => `[[check]]\nname = "${prefix}-${i}"\nservice = "s"\ncommand = "true"\nfrom = "${from}"\n`,
  ).join('\n');
}

test('over 1000 checks for a host: the first 1000 are declared, the rest a problem; the declaration stays valid', () => {
  const file = parseChecksFile(`${tables(1003, 'web-1')}\n${tables(5, 'db-1', 'd')}`);
  const web = declarationOf(file, 'web-1');
  assert.equal(web.checks.length, 1000);
  assert.equal(web.checks.at(-1)?.name, 'c-999');
  assert.deepEqual(web.problems, [
    '1003 command checks are for web-1: only the first 1000 command checks are used',
  ]);
  // The server's own schema takes it (1003 checks would refuse the whole declaration).
  assert.ok(declareFrameSchema.safeParse({ kind: 'declare', ts: 0, ...web }).success);
  assert.deepEqual(declarationOf(file, 'db-1').problems, []);
});

test("a from that differs from the host name in case only is a problem; the log counts this host's checks", () => {
  const file = parseChecksFile(
    `${tables(7, 'web-1')}\n${tables(1, 'web-9', 'n')}\n${tables(2, 'Web-1', 'u')}\n${tables(1, 'WEB-1', 'v')}`,
  );
  const web = declarationOf(file, 'web-1');
  assert.equal(web.checks.length, 7);
  assert.deepEqual(web.problems, [
    'from = "Web-1" is not this host\'s name web-1 (names are case-sensitive): 2 checks not declared (u-0, u-1)',
    'from = "WEB-1" is not this host\'s name web-1 (names are case-sensitive): 1 check not declared (v-0)',
  ]);
  // A shared file: other hosts' tables are theirs, and no problem here.
  assert.deepEqual(declarationOf(file, 'web-9').problems, []);
  assert.equal(
    checksSummary(file, 'web-1'),
    '7 command checks for web-1 (4 for other hosts: web-9, Web-1, WEB-1)',
  );
  assert.equal(
    checksSummary(file, 'web-9'),
    '1 command check for web-9 (10 for other hosts: web-1, Web-1, WEB-1)',
  );
  assert.equal(checksSummary(parseChecksFile(tables(2, 'a')), 'a'), '2 command checks for a');
});
