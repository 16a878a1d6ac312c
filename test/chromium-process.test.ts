import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { startReceiver } from '../server/http/fixtures/receiver.ts';
import { within } from '../server/testing.ts';
import { spawnChromium } from './panel/chromium-process.ts';

/**
 * Chromium run as its own process (spawnChromium) ends with nothing left behind: no process of its
 * own, no profile, even while a page keeps writing to the profile as it is killed.
 */
test('closing a spawned Chromium leaves no process and no profile, a page writing to it meanwhile', async (t) => {
  const site = await startReceiver();
  t.after(() => site.close());
  // IndexedDB and local storage, written again and again: the browser's storage processes write the
  // profile until the moment they die.
  site.answer = () => ({
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: `<!doctype html><script>
      let i = 0;
      const open = indexedDB.open('busy');
      open.onupgradeneeded = () => open.result.createObjectStore('s');
      open.onsuccess = () => setInterval(() => {
        open.result.transaction('s', 'readwrite').objectStore('s').put('x'.repeat(100000), i % 50);
        localStorage.setItem('k' + (i++ % 50), 'y'.repeat(100000));
        if (i === 20) fetch('/busy');
      }, 5);
    </script>`,
  });
  for (let round = 0; round < 3; round++) {
    const chromium = spawnChromium([`${site.url}/`]);
    await within(20_000, 'the page writing its storage', () => site.to('/busy').length > round);
    assert.ok(readdirSync(chromium.profile).length > 0);
    await chromium.close();
    assert.equal(chromium.running(), false, 'a process of the browser is left');
    assert.equal(existsSync(chromium.profile), false, 'the profile is left');
  }
});
