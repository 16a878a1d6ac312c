import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import {
  all,
  blob,
  bool,
  exists,
  int,
  json,
  mapper,
  nullable,
  one,
  oneOf,
  real,
  scalar,
  text,
} from './rows.ts';

function database(): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  db.exec(`CREATE TABLE items (
    id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, ratio REAL, managed INTEGER NOT NULL,
    body TEXT NOT NULL, hash BLOB, status TEXT NOT NULL, note TEXT
  ) STRICT`);
  const insert = db.prepare('INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  insert.run('a', 1000, 0.25, 1, '{"tags":["x"],"n":2}', Buffer.from([1, 2, 3]), 'up', 'first');
  insert.run('b', 2000, null, 0, '[]', null, 'down', null);
  return db;
}

const item = mapper({
  id: text,
  createdAt: int,
  ratio: nullable(real),
  managed: bool,
  body: json<{ tags: string[]; n: number } | []>(),
  hash: nullable(blob),
  status: oneOf(['up', 'down']),
  note: nullable(text),
});

/** Records the SQL of every statement `db` prepares from now on. */
function recordPrepares(db: DatabaseSync): string[] {
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    seen.push(sql);
    return prepare(sql);
  };
  return seen;
}

test('rows map each column type: text, int, real, bool, json, blob, oneOf, and NULL where nullable', () => {
  const db = database();
  const rows = all(db, 'SELECT * FROM items ORDER BY id', item);
  assert.deepEqual(rows, [
    {
      id: 'a',
      createdAt: 1000,
      ratio: 0.25,
      managed: true,
      body: { tags: ['x'], n: 2 },
      hash: Buffer.from([1, 2, 3]),
      status: 'up',
      note: 'first',
    },
    {
      id: 'b',
      createdAt: 2000,
      ratio: null,
      managed: false,
      body: [],
      hash: null,
      status: 'down',
      note: null,
    },
  ]);
  assert.ok(Buffer.isBuffer(rows[0]!.hash));
  // An integer in a REAL place is a number too (sum() over integers, a REAL column's whole value).
  assert.equal(one(db, 'SELECT 3 AS ratio', mapper({ ratio: real }))?.ratio, 3);
});

test('camelCase fields read their snake_case columns; build shapes the mapped fields', () => {
  const db = database();
  const shaped = mapper({ id: text, createdAt: int, managed: bool }, (r) => ({
    key: r.id,
    at: new Date(r.createdAt).toISOString(),
    flags: { managed: r.managed },
  }));
  assert.deepEqual(one(db, 'SELECT id, created_at, managed FROM items WHERE id = ?', shaped, 'a'), {
    key: 'a',
    at: '1970-01-01T00:00:01.000Z',
    flags: { managed: true },
  });
  // Columns a mapper does not declare are left out.
  assert.deepEqual(one(db, 'SELECT * FROM items WHERE id = ?', mapper({ createdAt: int }), 'b'), {
    createdAt: 2000,
  });
});

test('a value of the wrong storage class throws an Error naming the column and the SQL', () => {
  const db = database();
  const cases: [sql: string, m: Parameters<typeof one>[2], message: RegExp][] = [
    ["SELECT 'x' AS n", mapper({ n: int }), /column n of `SELECT 'x' AS n` holds text, declared int/],
    ['SELECT 1.5 AS n', mapper({ n: int }), /column n of `SELECT 1\.5 AS n` holds a real, declared int/],
    ['SELECT 7 AS id', mapper({ id: text }), /column id of `SELECT 7 AS id` holds an integer, declared text/],
    ['SELECT NULL AS id', mapper({ id: text }), /column id of .* holds NULL, declared text/],
    [
      'SELECT 2 AS managed',
      mapper({ managed: bool }),
      /column managed of .* holds the integer 2, declared bool/,
    ],
    ["SELECT 'up' AS managed", mapper({ managed: bool }), /column managed .* holds text, declared bool/],
    [
      "SELECT 'paused' AS s",
      mapper({ s: oneOf(['up', 'down']) }),
      /holds "paused", declared one of up, down/,
    ],
    ["SELECT '{' AS body", mapper({ body: json() }), /column body of .* holds text that is not JSON/],
    ["SELECT 'ab' AS hash", mapper({ hash: blob }), /column hash of .* holds text, declared blob/],
    ["SELECT x'00' AS note", mapper({ note: nullable(text) }), /holds a blob, declared text or NULL/],
    [
      'SELECT id, created_at AS createdAt FROM items',
      mapper({ createdAt: int }),
      /`SELECT id, created_at AS createdAt FROM items` has no column created_at/,
    ],
  ];
  for (const [sql, m, message] of cases) {
    assert.throws(() => one(db, sql, m), message, sql);
    assert.throws(() => all(db, sql, m), message, sql);
  }
  // The message names the storage class, never the value (it may be a password hash).
  assert.throws(
    () => one(db, "SELECT note FROM items WHERE id = 'a'", mapper({ note: int })),
    (error: Error) => /holds text, declared int/.test(error.message) && !error.message.includes('first'),
  );
  // SQL over several lines is quoted on one.
  assert.throws(
    () => one(db, 'SELECT id\n       FROM items', mapper({ id: int })),
    /column id of `SELECT id FROM items` holds text/,
  );
});

test('one gives undefined without a row, all an empty list, exists whether there is a row', () => {
  const db = database();
  assert.equal(one(db, 'SELECT * FROM items WHERE id = ?', item, 'nope'), undefined);
  assert.deepEqual(all(db, 'SELECT * FROM items WHERE id = ?', item, 'nope'), []);
  assert.equal(one(db, 'SELECT * FROM items WHERE id = ?', item, 'b')?.status, 'down');
  assert.equal(exists(db, 'SELECT 1 FROM items WHERE id = ?', 'a'), true);
  assert.equal(exists(db, 'SELECT 1 FROM items WHERE id = ?', 'nope'), false);
});

test('scalar gives the one value of a one-column query and throws without a row or with more columns', () => {
  const db = database();
  assert.equal(scalar(db, 'SELECT count(*) AS n FROM items WHERE managed = ?', int, 1), 1);
  assert.equal(scalar(db, 'SELECT max(ratio) FROM items', nullable(real)), 0.25);
  assert.equal(scalar(db, "SELECT sum(created_at) FROM items WHERE id = 'nope'", nullable(int)), null);
  assert.equal(scalar(db, 'PRAGMA user_version', int), 0);
  assert.throws(
    () => scalar(db, "SELECT sum(created_at) AS total FROM items WHERE id = 'nope'", int),
    /column total of .* holds NULL, declared int/,
  );
  assert.throws(
    () => scalar(db, 'SELECT id FROM items WHERE 0', text),
    /no row from `SELECT id FROM items WHERE 0`/,
  );
  assert.throws(
    () => scalar(db, 'SELECT id, status FROM items', text),
    /gives 2 columns; a scalar gives one/,
  );
});

test('one, all, scalar and exists prepare each SQL once per connection and reuse it', () => {
  const db = database();
  const other = database();
  const prepared = recordPrepares(db);
  const preparedOther = recordPrepares(other);
  for (let i = 0; i < 5; i++) {
    one(db, 'SELECT * FROM items WHERE id = ?', item, 'a');
    all(db, 'SELECT * FROM items ORDER BY id', item);
    scalar(db, 'SELECT count(*) AS n FROM items', int);
    exists(db, 'SELECT 1 FROM items WHERE id = ?', 'b');
    one(other, 'SELECT * FROM items WHERE id = ?', item, 'a');
  }
  assert.deepEqual(prepared, [
    'SELECT * FROM items WHERE id = ?',
    'SELECT * FROM items ORDER BY id',
    'SELECT count(*) AS n FROM items',
    'SELECT 1 FROM items WHERE id = ?',
  ]);
  assert.deepEqual(preparedOther, ['SELECT * FROM items WHERE id = ?']);
});
