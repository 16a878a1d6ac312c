import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import { statement } from './statements.ts';

/**
 * The one typed way of reading rows. A read declares its row once, a field per column with the
 * column's type: `mapper({ id: text, createdAt: int, managed: bool, body: json<CheckBody>() })`. A
 * camelCase field reads its snake_case column (`createdAt` ← `created_at`). `one`, `all` and `scalar`
 * run the connection's cached statement (statements.ts) and map what it returns.
 *
 * Each value's storage class is checked as it is mapped: a column holding something other than its
 * declared type (schema drift, a wrong alias, a column left out of the SELECT) throws an Error naming
 * the column and the SQL instead of handing a string to code that expects a number. The message never
 * holds the value itself (it may be a secret such as a password hash), only its storage class.
 */

type ColumnType = 'text' | 'int' | 'real' | 'bool' | 'json' | 'blob' | 'oneOf';

/** How one column is checked and turned into a field of type `T`. */
export type Column<T> = {
  readonly type: ColumnType;
  readonly nullable: boolean;
  /** The allowed texts of a `oneOf` column. */
  readonly values: ReadonlySet<string> | null;
  /** Never set: carries `T` for the type checker. */
  readonly value?: T;
};

const column = <T>(type: ColumnType): Column<T> => ({ type, nullable: false, values: null });

/** TEXT. */
export const text: Column<string> = column('text');
/** INTEGER: a whole number. */
export const int: Column<number> = column('int');
/** REAL (or INTEGER, as aggregates over REAL columns may give): any number. */
export const real: Column<number> = column('real');
/** INTEGER 0 or 1 as false or true; any other value throws. */
export const bool: Column<boolean> = column('bool');
/** BLOB as a Buffer (sharing the row's memory). */
export const blob: Column<Buffer> = column('blob');

/** TEXT holding JSON that mon wrote from a `T`; parsed, not validated. */
export function json<T>(): Column<T> {
  return column('json');
}

/** TEXT that must be one of `values` (a status, a kind, a role). */
export function oneOf<const V extends string>(values: readonly V[]): Column<V> {
  return { type: 'oneOf', nullable: false, values: new Set(values) };
}

/** The same column, NULL allowed (as null). */
export function nullable<T>(c: Column<T>): Column<T | null> {
  return { ...c, nullable: true };
}

type Field = {
  readonly key: string;
  readonly column: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
  readonly values: ReadonlySet<string> | null;
};

/** A row's declared columns and what they map to; build once (module level), use for every row. */
export type Mapper<T> = {
  readonly fields: readonly Field[];
  readonly finish: (flat: Record<string, unknown>) => T;
};

type Columns = Record<string, Column<unknown>>;
/** The fields a set of columns maps to. */
export type Fields<C extends Columns> = { [K in keyof C]: C[K] extends Column<infer T> ? T : never };
/** The type a mapper gives. */
export type Mapped<M> = M extends Mapper<infer T> ? T : never;

/**
 * A mapper of rows with these columns: each field reads the snake_case of its name. With `build`,
 * the mapped fields are then shaped into `T` (nesting, derived fields).
 */
export function mapper<C extends Columns>(columns: C): Mapper<Fields<C>>;
export function mapper<C extends Columns, T>(columns: C, build: (fields: Fields<C>) => T): Mapper<T>;
export function mapper<C extends Columns, T>(columns: C, build?: (fields: Fields<C>) => T): Mapper<unknown> {
  const fields = Object.entries(columns).map(([key, c]) => fieldOf(key, snakeCase(key), c));
  // The fields were checked one by one against `columns` as they were mapped.
  const asFields = (flat: Record<string, unknown>) => flat as Fields<C>;
  return { fields, finish: build ? (flat) => build(asFields(flat)) : asFields };
}

function fieldOf(key: string, name: string, c: Column<unknown>): Field {
  return { key, column: name, type: c.type, nullable: c.nullable, values: c.values };
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The first row of `sql` mapped, or undefined when there is none. */
export function one<T>(
  db: DatabaseSync,
  sql: string,
  m: Mapper<T>,
  ...params: SQLInputValue[]
): T | undefined {
  const row = statement(db, sql).get(...params);
  return row === undefined ? undefined : mapRow(m, row, sql);
}

/** Every row of `sql` mapped. */
export function all<T>(db: DatabaseSync, sql: string, m: Mapper<T>, ...params: SQLInputValue[]): T[] {
  const rows = statement(db, sql).all(...params);
  const out: T[] = [];
  for (let i = 0; i < rows.length; i++) out.push(mapRow(m, rows[i]!, sql));
  return out;
}

/**
 * The single column of the single row `sql` gives (`SELECT count(*) AS n …`, `PRAGMA user_version`).
 * No row, or more than one column, throws: a scalar query always answers one value.
 */
export function scalar<T>(db: DatabaseSync, sql: string, c: Column<T>, ...params: SQLInputValue[]): T {
  const row = statement(db, sql).get(...params);
  if (row === undefined) throw new Error(`no row from ${quote(sql)}, which must give one value`);
  const names = Object.keys(row);
  if (names.length !== 1) throw new Error(`${quote(sql)} gives ${names.length} columns; a scalar gives one`);
  const name = names[0]!;
  // columnValue checked the value against `c`.
  return columnValue(fieldOf(name, name, c), row[name], sql) as T;
}

/** Whether `sql` gives a row (`SELECT 1 FROM … WHERE …`). */
export function exists(db: DatabaseSync, sql: string, ...params: SQLInputValue[]): boolean {
  return statement(db, sql).get(...params) !== undefined;
}

function mapRow<T>(m: Mapper<T>, row: Record<string, SQLOutputValue>, sql: string): T {
  const fields = m.fields;
  const flat: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    flat[f.key] = columnValue(f, row[f.column], sql);
  }
  return m.finish(flat);
}

/** The checked, converted value of one column; throws naming the column and the SQL. */
function columnValue(f: Field, v: SQLOutputValue | undefined, sql: string): unknown {
  if (v === null) {
    if (f.nullable) return null;
    throw wrong(f, v, sql);
  }
  switch (f.type) {
    case 'text':
      if (typeof v === 'string') return v;
      break;
    case 'int':
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      break;
    case 'real':
      if (typeof v === 'number') return v;
      break;
    case 'bool':
      if (v === 1) return true;
      if (v === 0) return false;
      break;
    case 'oneOf':
      if (typeof v === 'string' && f.values!.has(v)) return v;
      break;
    case 'json':
      if (typeof v === 'string') {
        try {
          return JSON.parse(v);
        } catch (error) {
          throw new Error(`column ${f.column} of ${quote(sql)} holds text that is not JSON: ${error}`);
        }
      }
      break;
    case 'blob':
      if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      break;
  }
  throw wrong(f, v, sql);
}

function wrong(f: Field, v: SQLOutputValue | undefined, sql: string): Error {
  if (v === undefined) return new Error(`${quote(sql)} has no column ${f.column}`);
  const declared =
    f.type === 'oneOf' ? `one of ${[...f.values!].join(', ')}` : f.nullable ? `${f.type} or NULL` : f.type;
  const held =
    f.type === 'oneOf' && typeof v === 'string'
      ? `"${v.slice(0, 40)}"`
      : f.type === 'bool' && typeof v === 'number'
        ? `the integer ${v}`
        : storageClass(v);
  return new Error(`column ${f.column} of ${quote(sql)} holds ${held}, declared ${declared}`);
}

function storageClass(v: SQLOutputValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return 'text';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a real';
  if (typeof v === 'bigint') return 'a bigint';
  return 'a blob';
}

const quote = (sql: string) => `\`${sql.replace(/\s+/g, ' ').trim()}\``;
