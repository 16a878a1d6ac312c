import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { tempDir } from '../server/testing.ts';
import { startServerProcess } from './server-process.ts';

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} stops the server cleanly with exit code 0 within 5 s`, async () => {
    const data = tempDir();
    const { child, address } = await startServerProcess({ MON_DATA_DIR: data.dir });
    const health = await fetch(`${address}/healthz`);
    assert.equal(await health.text(), 'ok');
    const began = Date.now();
    child.kill(signal);
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.ok(Date.now() - began < 5000, 'exited within 5 s');
    data.remove();
  });
}
