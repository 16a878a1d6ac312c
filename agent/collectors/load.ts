import { join } from 'node:path';
import type { SampleFrame } from '../../protocol/agent.ts';
import { readText } from './files.ts';

/**
 * Load average over 1, 5 and 15 minutes, the first three fields of `<root>/proc/loadavg`
 * (`0.52 0.58 0.59 1/467 12345`); null when it cannot be read.
 */

export function parseLoadavg(text: string): SampleFrame['load'] {
  const [one, five, fifteen] = text.trim().split(/\s+/).map(Number);
  if (![one, five, fifteen].every((v) => v !== undefined && Number.isFinite(v) && v >= 0)) return null;
  return [one!, five!, fifteen!];
}

export async function readLoad(root: string): Promise<SampleFrame['load']> {
  const text = await readText(join(root, '/proc/loadavg'));
  return text === null ? null : parseLoadavg(text);
}
