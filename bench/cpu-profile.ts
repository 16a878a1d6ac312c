import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

type Profile = {
  startTime: number;
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
};

export type Cost = { name: string; percent: number };

/**
 * Where a V8 CPU profile (`--cpu-prof`) spent its busy time from `fromMs` after the process started
 * (leaving out its start-up): self time by function and by area (a file of mon, a package, Node's
 * internals, native code, the garbage collector), as percent of the time not idle.
 */
export function profileCosts(
  file: string,
  root: string,
  fromMs: number,
): { functions: Cost[]; areas: Cost[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let busy = 0;
  let elapsedUs = 0;
  for (const [i, id] of profile.samples.entries()) {
    const us = profile.timeDeltas[i] ?? 0;
    elapsedUs += us;
    const frame = frames.get(id)!;
    if (elapsedUs < fromMs * 1000 || frame.functionName === '(idle)') continue;
    busy += us;
    const where = area(frame.url, root);
    const name = frame.url
      ? `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`
      : frame.functionName;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    // Native functions have no URL; "(garbage collector)" and "(program)" are V8's own.
    const key = frame.url ? where : frame.functionName.startsWith('(') ? frame.functionName : 'native';
    byArea.set(key, (byArea.get(key) ?? 0) + us);
  }
  const ranked = (costs: Map<string, number>) =>
    [...costs]
      .map(([name, us]) => ({ name, percent: (us / busy) * 100 }))
      .sort((a, b) => b.percent - a.percent);
  return { functions: ranked(byFunction), areas: ranked(byArea) };
}

/** A package's name, Node's internals, or a file of mon relative to the repository. */
function area(url: string, root: string): string {
  if (url.startsWith('node:')) return 'node internals';
  if (url.startsWith('wasm:')) return 'wasm';
  const path = url.replace(/^file:\/\//, '');
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (packaged) return packaged[1]!;
  return relative(root, path);
}
