import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBotAgent } from './bots.ts';
import { agents } from './testkit.ts';
import { UserAgents } from './user-agents.ts';

test('devices, browsers and operating systems of real browsers', () => {
  const read = new UserAgents();
  const traits = (agent: string) => {
    const { device, browser, os } = read.of(agent);
    return `${device} ${browser} ${os}`;
  };
  assert.equal(traits(agents.chromeWindows), 'desktop Chrome Windows');
  assert.equal(traits(agents.safariIphone), 'mobile Safari iOS');
  assert.equal(traits(agents.firefoxAndroid), 'mobile Firefox Android');
  assert.equal(traits(agents.safariIpad), 'tablet Safari iOS');
  assert.equal(
    traits(
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    ),
    'desktop Safari macOS',
  );
  assert.equal(
    traits(
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
    ),
    'desktop Microsoft Edge Windows',
  );
  assert.equal(
    traits(
      'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    ),
    'tablet Chrome Android',
  );
  for (const agent of Object.values(agents).slice(0, 4)) assert.equal(read.of(agent).bot, false, agent);
});

test('bots: crawlers, headless and scripted browsers, and no user agent at all', () => {
  const bots = [
    agents.googlebot,
    agents.headlessChrome,
    'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) app/1.0 Chrome/120.0.0.0 Electron/28.0.0 Safari/537.36',
    'Mozilla/5.0 (X11; Linux x86_64; rv:60.0) Gecko/20100101 SlimerJS/1.0.0',
    'Mozilla/5.0 (linux) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/20.0.0',
    'curl/8.5.0',
    '',
    undefined,
  ];
  for (const agent of bots) assert.equal(isBotAgent(agent), true, String(agent));
  assert.equal(new UserAgents().of(undefined).bot, true);
});

test('the cache of parsed agents stays bounded and answers what parsing does', () => {
  const read = new UserAgents();
  const first = read.of(agents.chromeWindows);
  for (let i = 0; i < 5000; i++) read.of(`${agents.safariIphone} ${i}`);
  assert.ok(read.size <= 2000, String(read.size));
  assert.deepEqual(read.of(agents.chromeWindows), first);
  // An agent in use stays while thousands of others come and go: the same object each time.
  const kept = read.of(agents.firefoxAndroid);
  for (let i = 0; i < 5000; i++) {
    read.of(`${agents.safariIphone} more ${i}`);
    if (i % 500 === 0) assert.equal(read.of(agents.firefoxAndroid), kept, `kept after ${i}`);
  }
  assert.equal(read.of(agents.firefoxAndroid), kept);
  // Very long agents are read, not kept.
  const size = read.size;
  read.of(`${agents.chromeWindows} ${'x'.repeat(2000)}`);
  assert.equal(read.size, size);
});
