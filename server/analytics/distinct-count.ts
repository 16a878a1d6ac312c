/**
 * How many distinct visitors, in 1 KiB whatever their number: a HyperLogLog sketch of 1,024 registers
 * (about 3% off), fed with visitor ids, which are hashes already. Sketches merge, so hours add up to a day.
 */

const INDEX_BITS = 10;
const REGISTERS = 1 << INDEX_BITS;
const ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);

export class DistinctCount {
  private readonly registers = new Uint8Array(REGISTERS);

  /** Counts `id`, a hex hash of at least 11 digits (a visitor id). */
  add(id: string): void {
    const index = Number.parseInt(id.slice(0, 3), 16) & (REGISTERS - 1);
    const rest = Number.parseInt(id.slice(3, 11), 16) >>> 0;
    const rank = Math.clz32(rest) + 1;
    if (rank > this.registers[index]!) this.registers[index] = rank;
  }

  /** Adds what `other` counted. */
  merge(other: DistinctCount): void {
    for (let i = 0; i < REGISTERS; i++) {
      if (other.registers[i]! > this.registers[i]!) this.registers[i] = other.registers[i]!;
    }
  }

  /** The estimate: exact enough for small counts (linear counting), within a few percent beyond. */
  estimate(): number {
    let sum = 0;
    let zeros = 0;
    for (const r of this.registers) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const raw = (ALPHA * REGISTERS * REGISTERS) / sum;
    if (raw <= 2.5 * REGISTERS && zeros > 0) return Math.round(REGISTERS * Math.log(REGISTERS / zeros));
    return Math.round(raw);
  }
}
