import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY } from '../../protocol/durations.ts';
import {
  BLOCK_DAYS,
  type BlockRes,
  type BlocksWritten,
  blockRes,
  dayPieces,
  daysIn,
  daysOf,
  halvesOf,
  nextBlock,
  type Piece,
} from './blocks.ts';

/** Day 20,480 since 1970 (2026-01-27) is a multiple of 256 days. */
const ALIGNED = 20_480 * DAY;

const everyWritten = (since: number, until: number): BlocksWritten => ({
  since,
  until: new Map(BLOCK_DAYS.map((n) => [blockRes(n), until])),
});

/** The days pieces cover, in order. */
const coveredDays = (pieces: Piece[]) => pieces.flatMap(daysOf).map((p) => p.at);

test('a run of days is its days in order, as at most two blocks of each length and two single days, each on its boundary', () => {
  const written = everyWritten(ALIGNED - 1024 * DAY, ALIGNED + 1024 * DAY);
  // A deterministic spread of runs, up to 400 days, aligned or not.
  for (let i = 0; i < 500; i++) {
    const from = ALIGNED - 700 * DAY + ((i * 7919) % 1000) * DAY;
    const to = from + (1 + ((i * 104_729) % 400)) * DAY;
    const pieces = dayPieces(from, to, written);
    const days = (to - from) / DAY;
    assert.deepEqual(
      coveredDays(pieces),
      Array.from({ length: days }, (_, d) => from + d * DAY),
    );
    for (const piece of pieces)
      assert.equal((piece.at / DAY) % daysIn(piece), 0, `${piece.res} at ${piece.at}`);
    const perLength = Map.groupBy(pieces, (p) => p.res);
    for (const [res, same] of perLength) assert.ok(same.length <= 2, `${same.length} pieces of ${res}`);
    assert.ok(pieces.length <= 2 * BLOCK_DAYS.length + 2, `${pieces.length} pieces`);
  }
});

test('blocks are used only where written: from `since`, and up to the `until` of their length', () => {
  const since = ALIGNED + 3 * DAY;
  const until = new Map<BlockRes, number>([
    ['2d', ALIGNED + 40 * DAY],
    ['4d', ALIGNED + 32 * DAY],
    ['8d', ALIGNED + 32 * DAY],
    ['16d', ALIGNED + 32 * DAY],
  ]);
  const pieces = dayPieces(ALIGNED - 2 * DAY, ALIGNED + 44 * DAY, { since, until });
  assert.deepEqual(
    pieces.map((p) => `${p.res}@${(p.at - ALIGNED) / DAY}`),
    [
      // before `since`: days
      'd@-2',
      'd@-1',
      'd@0',
      'd@1',
      'd@2',
      // from `since` on: the longest written that starts on each day
      'd@3',
      '4d@4',
      '8d@8',
      '16d@16',
      '2d@32',
      '2d@34',
      '2d@36',
      '2d@38',
      // after the blocks written: days
      'd@40',
      'd@41',
      'd@42',
      'd@43',
    ],
  );
  assert.deepEqual(dayPieces(ALIGNED, ALIGNED + 4 * DAY, null), daysOf({ res: '4d', at: ALIGNED }));
});

test('blocks are written shortest first, each once its halves are, every block of the days over exactly once', () => {
  const since = ALIGNED - 300 * DAY + 5 * DAY;
  const daysOver = ALIGNED + 100 * DAY;
  const until = new Map<BlockRes, number>(BLOCK_DAYS.map((n) => [blockRes(n), since]));
  const written = new Set<string>();
  const order: string[] = [];
  for (
    let block = nextBlock({ since, until }, daysOver);
    block;
    block = nextBlock({ since, until }, daysOver)
  ) {
    const key = `${block.res}@${block.at}`;
    assert.ok(!written.has(key), `${key} twice`);
    for (const half of halvesOf(block)) {
      if (half.res === 'd')
        assert.ok(half.at >= since && half.at < daysOver, `${key}: day ${half.at} not over`);
      else assert.ok(written.has(`${half.res}@${half.at}`), `${key} before its half ${half.res}@${half.at}`);
    }
    written.add(key);
    order.push(block.res);
    until.set(block.res, block.at + daysIn(block) * DAY);
  }
  // Every aligned block within [since, daysOver), and no other.
  for (const n of BLOCK_DAYS) {
    const expected: string[] = [];
    for (let at = Math.ceil(since / (n * DAY)) * n * DAY; at + n * DAY <= daysOver; at += n * DAY)
      expected.push(`${n}d@${at}`);
    assert.deepEqual(
      [...written].filter((key) => key.startsWith(`${n}d@`)),
      expected,
      `${n}d`,
    );
  }
  assert.equal(order[0], '2d');
  assert.equal(nextBlock({ since, until }, daysOver + DAY), null, 'one more day over completes no block');
  assert.deepEqual(nextBlock({ since, until }, daysOver + 2 * DAY), { res: '2d', at: daysOver });
});
