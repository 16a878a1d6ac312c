import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { fieldIssue } from './messages.ts';

/** The schema library's own phrasing, which must never reach a person. */
const libraryWords = /Invalid|Too big|Too small|[Ee]xpected \w+|received|Unrecognized|[<>]=?\s?\d/;

/** The first issue of parsing `value`: its path and message. */
function problem(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  assert.equal(result.success, false, `${JSON.stringify(value)} must be refused`);
  const { path, message } = fieldIssue(result.error!.issues[0]!);
  return path.length > 0 ? `${path.join('.')}: ${message}` : message;
}

test('every kind of issue reads in mon words where the schema sets none', () => {
  const cases: [z.ZodType, unknown, string][] = [
    [z.object({ name: z.string() }), {}, 'name: required'],
    [z.object({ name: z.string() }), { name: 5 }, 'name: must be a string'],
    [z.object({ n: z.number() }), { n: 'x' }, 'n: must be a number'],
    [z.object({ n: z.number().int() }), { n: 1.5 }, 'n: must be a whole number'],
    [z.object({ on: z.boolean() }), { on: 'yes' }, 'on: must be true or false'],
    [z.object({ list: z.array(z.string()) }), { list: 'a' }, 'list: must be a list'],
    [z.object({ t: z.object({}) }), { t: [] }, 't: must be an object'],
    [z.object({ n: z.number().max(5) }), { n: 6 }, 'n: must be at most 5'],
    [z.object({ n: z.number().min(2) }), { n: 1 }, 'n: must be at least 2'],
    [z.object({ n: z.number().positive() }), { n: 0 }, 'n: must be more than 0'],
    [z.object({ n: z.number().lt(3) }), { n: 3 }, 'n: must be less than 3'],
    [
      z.object({ everyMs: z.number().max(7 * 86_400_000) }),
      { everyMs: 8 * 86_400_000 },
      'everyMs: must be at most 7d',
    ],
    [z.object({ timeoutMs: z.number().min(100) }), { timeoutMs: 5 }, 'timeoutMs: must be at least 100ms'],
    [z.object({ s: z.string().min(1) }), { s: '' }, 's: must not be empty'],
    [z.object({ s: z.string().max(3) }), { s: 'abcd' }, 's: must be at most 3 characters'],
    [z.object({ s: z.string().length(2) }), { s: 'a' }, 's: must be exactly 2 characters'],
    [z.object({ l: z.array(z.number()).max(2) }), { l: [1, 2, 3] }, 'l: must have at most 2 items'],
    [z.object({ l: z.array(z.number()).min(1) }), { l: [] }, 'l: must not be empty'],
    [z.object({ n: z.number().multipleOf(5) }), { n: 7 }, 'n: must be a multiple of 5'],
    [z.object({ kind: z.enum(['http', 'tcp']) }), { kind: 'udp' }, 'kind: must be one of http, tcp'],
    [z.object({ v: z.literal('k') }), { v: 'j' }, 'v: must be k'],
    [z.object({ e: z.string().email() }), { e: 'x' }, 'e: must be an email address'],
    [z.object({ s: z.string().regex(/^a+$/) }), { s: 'b' }, 's: is not in the required format'],
    [z.object({ s: z.string().startsWith('btp_') }), { s: 'x' }, 's: must start with "btp_"'],
    [z.strictObject({ a: z.number() }), { a: 1, color: 'red' }, 'color: unknown field'],
    [
      z.object({ r: z.record(z.string().regex(/^a$/), z.number()) }),
      { r: { b: 1 } },
      'r.b: is not allowed as a key here',
    ],
    [z.object({ u: z.union([z.number(), z.string()]) }), { u: true }, 'u: must be a number or a string'],
    [
      z.object({ status: z.union([z.number().int().max(599), z.string().regex(/^[1-5]xx$/)]) }),
      { status: 700 },
      'status: must be at most 599',
    ],
    [z.object({ x: z.never() }), { x: 1 }, 'x: is not allowed here'],
    [z.object({ c: z.string().refine((v) => v === 'ok') }), { c: 'no' }, 'c: is not valid'],
  ];
  for (const [schema, value, expected] of cases) {
    const message = problem(schema, value);
    assert.equal(message, expected);
    assert.doesNotMatch(message, libraryWords);
  }
});

test("a schema's own message still wins over the fallback", () => {
  const schema = z.object({ n: z.number().min(10_000, 'must be at least 10000') });
  assert.equal(problem(schema, { n: 1 }), 'n: must be at least 10000');
  const typed = z.object({ s: z.string({ error: 'use a duration such as 30s' }) });
  assert.equal(problem(typed, { s: 5 }), 's: use a duration such as 30s');
});

test('several unknown keys are all named by the raw message', () => {
  const result = z.strictObject({}).safeParse({ a: 1, b: 2 });
  assert.equal(result.error?.issues[0]?.message, 'unknown fields "a", "b"');
});
