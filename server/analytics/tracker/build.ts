import { readFile, writeFile } from 'node:fs/promises';
import { TRACKER_MINIFIED, TRACKER_SOURCE } from '../tracker.ts';

/**
 * The tracking script's minified form, `b.min.js`, from its source `b.js`: rolldown's minifier
 * (oxc), names shortened and dead code dropped. `node server/analytics/tracker/build.ts` writes it
 * after a change to the source; tracker.test.ts fails while the two differ.
 */
export async function minifyTracker(source: string): Promise<string> {
  // Imported here: rolldown is a dev dependency, absent from an install for running mon.
  const { minifySync } = await import('rolldown/utils');
  const { code, errors } = minifySync('b.js', source);
  if (errors.length > 0) throw new Error(`the tracking script does not minify: ${errors[0]?.message}`);
  return code;
}

if (import.meta.main) {
  const code = await minifyTracker(await readFile(TRACKER_SOURCE, 'utf8'));
  await writeFile(TRACKER_MINIFIED, code);
  console.log(`${TRACKER_MINIFIED}: ${Buffer.byteLength(code)} bytes`);
}
