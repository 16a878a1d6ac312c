import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  createAdmin,
  ensurePanelBuilt,
  launchChromium,
  repoRoot,
  startMon,
  startTarget,
} from '../test/panel/harness.ts';
import type { Benchmark } from './main.ts';

const CHECKS = 1000;
const LOADS = 5;

/** Gzipped size of the JavaScript index.html loads before anything else: its module and preloads. */
function initialJsGzip(): number {
  const dist = join(repoRoot, 'panel', 'dist');
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
  return files.reduce(
    (sum, f) => sum + gzipSync(readFileSync(join(dist, 'assets', f)), { level: 9 }).length,
    0,
  );
}

/**
 * The panel: time until the overview shows 1,000 checks in headless Chromium (a new browser context,
 * so a cold cache, per load; median of 5), and the initial JavaScript size gzipped.
 */
export const benchmark: Benchmark = {
  name: 'panel',
  async run() {
    await ensurePanelBuilt();
    const jsBytes = initialJsGzip();
    const [mon, target, browser] = await Promise.all([startMon(), startTarget(), launchChromium()]);
    try {
      const headers = { 'Content-Type': 'application/json', Origin: mon.base };
      const session = await createAdmin(mon.base, mon.setupToken, {
        email: 'bench@example.com',
        password: 'bench password 123',
      });
      const cookie = `${session.name}=${session.value}`;
      // 50 services of 20 checks, made 25 at a time; each runs once at creation, then every 10 minutes.
      for (let i = 0; i < CHECKS; i += 25) {
        await Promise.all(
          Array.from({ length: Math.min(25, CHECKS - i) }, async (_, j) => {
            const n = i + j;
            const response = await fetch(`${mon.base}/api/v1/checks`, {
              method: 'POST',
              headers: { ...headers, Cookie: cookie },
              body: JSON.stringify({
                name: `check ${String(n).padStart(4, '0')}`,
                service: `service ${String(n % 50).padStart(2, '0')}`,
                kind: 'http',
                target: `${target.url}?n=${n}`,
                everyMs: 600_000,
              }),
            });
            if (response.status !== 201)
              throw new Error(`check ${n}: ${response.status} ${await response.text()}`);
          }),
        );
      }
      const times: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await context.addCookies([session]);
        const page = await context.newPage();
        await page.goto(mon.base, { waitUntil: 'commit' });
        const rendered = await page.waitForFunction(
          (count) =>
            document.querySelectorAll('.check-list li').length >= count ? performance.now() : false,
          CHECKS,
          { polling: 'raf', timeout: 30_000 },
        );
        times.push((await rendered.jsonValue()) as number);
        await context.close();
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      return [
        {
          name: `panel overview with ${CHECKS.toLocaleString('en')} checks rendered (median of ${LOADS}, cold)`,
          value: `${Math.round(median)} ms`,
          goal: '< 1000 ms',
          ok: median < 1000,
        },
        {
          name: 'panel initial JavaScript, gzipped',
          value: `${(jsBytes / 1024).toFixed(1)} KB`,
          goal: '< 150 KB',
          ok: jsBytes < 150 * 1024,
        },
      ];
    } finally {
      await browser.close();
      await target.close();
      await mon.stop();
    }
  },
};
