import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createTestServer, type TestServer } from '../testing.ts';
import { minifyTracker } from './tracker/build.ts';
import { TRACKER_MINIFIED, TRACKER_SOURCE, trackerScript, trackerSnippet } from './tracker.ts';

/** How mon serves the tracker script and its snippet; the script's behaviour in Chromium is tracker.test.ts. */

describe('serving the script', () => {
  let server: TestServer;
  before(async () => {
    server = await createTestServer();
  });
  after(() => server.dispose());

  test('/b.js and /script.js serve the minified script, cached for an hour, for pages of any origin', async () => {
    const script = await trackerScript();
    assert.equal(script, await readFile(TRACKER_MINIFIED, 'utf8'));
    const answers = await Promise.all(
      ['/b.js', '/script.js'].map((url) => server.app.inject({ method: 'GET', url })),
    );
    for (const answer of answers) {
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.body, script);
      assert.equal(answer.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(answer.headers['cache-control'], 'public, max-age=3600');
      assert.equal(answer.headers['cross-origin-resource-policy'], 'cross-origin');
      // A tag with crossorigin (for integrity) or type="module" loads it in CORS mode.
      assert.equal(answer.headers['access-control-allow-origin'], '*');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
      assert.equal(answer.headers['content-security-policy'], undefined, 'no panel policy on a script');
      assert.equal(answer.headers['content-encoding'], undefined);
      assert.equal(answer.headers.vary, 'accept-encoding');
      assert.match(String(answer.headers.etag), /^W\/"[\w-]+"$/);
    }
    assert.equal(answers[0]!.headers.etag, answers[1]!.headers.etag);
  });

  test('If-None-Match with its ETag answers 304 without a body; another tag gets the script', async () => {
    const { etag } = (await server.app.inject({ method: 'GET', url: '/b.js' })).headers;
    const bare = String(etag).replace(/^W\//, '');
    for (const tags of [String(etag), bare, `"other", ${etag}`, '*']) {
      const answer = await server.app.inject({
        method: 'GET',
        url: '/script.js',
        headers: { 'if-none-match': tags },
      });
      assert.equal(answer.statusCode, 304, tags);
      assert.equal(answer.body, '');
      assert.equal(answer.headers.etag, etag);
      assert.equal(answer.headers['cache-control'], 'public, max-age=3600');
    }
    const stale = await server.app.inject({
      method: 'GET',
      url: '/b.js',
      headers: { 'if-none-match': '"an-older-script"' },
    });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.body, await trackerScript());
  });

  test('gzipped for a client that takes gzip, plain otherwise', async () => {
    const script = await trackerScript();
    const gzipped = await server.app.inject({
      method: 'GET',
      url: '/b.js',
      headers: { 'accept-encoding': 'br;q=1.0, gzip;q=0.8, *;q=0.1' },
    });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzipped.rawPayload).toString('utf8'), script);
    assert.ok(gzipped.rawPayload.length < Buffer.byteLength(script));
    for (const refused of ['gzip;q=0', 'identity', 'deflate, br']) {
      const plain = await server.app.inject({
        method: 'GET',
        url: '/b.js',
        headers: { 'accept-encoding': refused },
      });
      assert.equal(plain.headers['content-encoding'], undefined, refused);
      assert.equal(plain.body, script);
    }
  });

  test('the served form is the source minified (after a change: node server/analytics/tracker/build.ts)', async () => {
    const source = await readFile(TRACKER_SOURCE, 'utf8');
    assert.equal(
      await minifyTracker(source),
      await readFile(TRACKER_MINIFIED, 'utf8'),
      'b.min.js is not b.js minified: run node server/analytics/tracker/build.ts',
    );
  });
});

test('the snippet loads /b.js from mon for the domain, its attributes escaped', () => {
  assert.equal(
    trackerSnippet('https://mon.example', 'shop.example'),
    '<script defer src="https://mon.example/b.js" data-domain="shop.example"></script>',
  );
  assert.equal(
    trackerSnippet('https://mon.example/a"b', 'x"><img src=y onerror=alert(1)>&'),
    '<script defer src="https://mon.example/a&quot;b/b.js" data-domain="x&quot;&gt;&lt;img src=y onerror=alert(1)&gt;&amp;"></script>',
  );
});
