import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type TestContext, test } from 'node:test';
import { migrate, migrationFiles } from './db.ts';
import { all, int, mapper, scalar, text } from './rows.ts';

/** A temporary migrations directory holding the given files (`name → SQL`). */
function migrationsDir(t: TestContext, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mon-migrations-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

const userVersion = (db: DatabaseSync): number => scalar(db, 'PRAGMA user_version', int);

const tableName = mapper({ name: text }, (r) => r.name);
const tables = (db: DatabaseSync): string[] =>
  all(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", tableName);

test('migrations numbered 001, 002, … apply in order above user_version; non-.sql files are ignored', (t) => {
  const dir = migrationsDir(t, {
    '001-one.sql': 'CREATE TABLE one (id INTEGER PRIMARY KEY);',
    '002-two.sql': 'CREATE TABLE two (id INTEGER PRIMARY KEY);',
    'README.md': 'Numbered migrations.',
  });
  const db = new DatabaseSync(':memory:');
  migrate(db, dir);
  assert.equal(userVersion(db), 2);
  assert.deepEqual(tables(db), ['one', 'two']);
  writeFileSync(join(dir, '003-three.sql'), 'CREATE TABLE three (id INTEGER PRIMARY KEY);');
  migrate(db, dir);
  assert.equal(userVersion(db), 3);
  assert.deepEqual(tables(db), ['one', 'three', 'two']);
});

test('a database newer than the migrations is refused, naming both versions, and left as it is', (t) => {
  const dir = migrationsDir(t, {
    '001-one.sql': 'CREATE TABLE one (id INTEGER PRIMARY KEY);',
    '002-two.sql': 'CREATE TABLE two (id INTEGER PRIMARY KEY);',
  });
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE three (id INTEGER PRIMARY KEY); PRAGMA user_version = 3');
  assert.throws(() => migrate(db, dir), /schema version 3, and this mon knows versions up to 2/);
  assert.equal(userVersion(db), 3);
  assert.deepEqual(tables(db), ['three']);
});

test('two migrations with one number are refused before any is applied, naming both files', (t) => {
  const dir = migrationsDir(t, {
    '001-one.sql': 'CREATE TABLE one (id INTEGER PRIMARY KEY);',
    '002-mine.sql': 'CREATE TABLE mine (id INTEGER PRIMARY KEY);',
    '002-theirs.sql': 'CREATE TABLE theirs (id INTEGER PRIMARY KEY);',
  });
  const db = new DatabaseSync(':memory:');
  assert.throws(() => migrate(db, dir), {
    message: `migrations in ${dir} refused: number 002 used twice: 002-mine.sql, 002-theirs.sql`,
  });
  assert.equal(userVersion(db), 0);
  assert.deepEqual(tables(db), []);
});

test('a missing number is refused, naming the files around the gap', (t) => {
  const gap = migrationsDir(t, { '001-one.sql': '', '003-three.sql': '', '006-six.sql': '' });
  assert.throws(() => migrationFiles(gap), {
    message:
      `migrations in ${gap} refused: number 002 missing (between 001-one.sql and 003-three.sql); ` +
      'numbers 004 to 005 missing (between 003-three.sql and 006-six.sql)',
  });
  const noFirst = migrationsDir(t, { '002-two.sql': '' });
  assert.throws(() => migrate(new DatabaseSync(':memory:'), noFirst), {
    message: `migrations in ${noFirst} refused: number 001 missing (before 002-two.sql)`,
  });
});

test('a .sql file not named NNN-name.sql is refused rather than skipped', (t) => {
  const dir = migrationsDir(t, {
    '001-one.sql': '',
    '002-two.sql': '',
    '3-three.sql': '',
    '000-zero.sql': '',
    'fix.sql': '',
    '004 four.sql': '',
  });
  assert.throws(() => migrationFiles(dir), {
    message: `migrations in ${dir} refused: not named NNN-name.sql from 001: 000-zero.sql, 004 four.sql, 3-three.sql, fix.sql`,
  });
});

test("the server's own migrations are numbered 001 to N with no gap or duplicate and all apply", () => {
  const files = migrationFiles();
  assert.ok(files.length > 0);
  assert.deepEqual(
    files.map((f) => Number(f.slice(0, 3))),
    files.map((_, i) => i + 1),
  );
  const own = readdirSync(join(import.meta.dirname, 'migrations')).filter((f) => f.endsWith('.sql'));
  assert.deepEqual(files, own.sort());
  const db = new DatabaseSync(':memory:');
  migrate(db);
  assert.equal(userVersion(db), files.length);
});
