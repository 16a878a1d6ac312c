import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SiteCreated } from '../../protocol/analytics.ts';
import { checkServer, liveConfig } from '../checks/testkit.ts';

/**
 * What mon hands out to be used elsewhere carries its public address: here the tracking snippet of
 * `POST /api/v1/sites`, whose script an https page must be able to load. Requests come from
 * 127.0.0.1, a trusted proxy unless the test says otherwise.
 */
async function snippetSrc(
  config: ReturnType<typeof liveConfig>,
  domain: string,
  headers: Record<string, string>,
): Promise<string> {
  const { server } = await checkServer({ config: config.service });
  try {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/sites',
      headers: { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080', ...headers },
      payload: { domain, service: 'shop' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return /src="([^"]+)"/.exec((res.json() as SiteCreated).snippet)?.[1] ?? '';
  } finally {
    await server.dispose();
  }
}

const proxied = (trusted: string[], url: string | null = null) =>
  liveConfig({ server: { url, trustedProxies: trusted } });

test('behind a trusted proxy the address is the one the client used: X-Forwarded-Proto and -Host, or Forwarded', async () => {
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'mon.example.org' };
  assert.equal(
    await snippetSrc(proxied(['127.0.0.1']), 'a.example', forwarded),
    'https://mon.example.org/b.js',
  );
  assert.equal(
    await snippetSrc(proxied(['127.0.0.0/8']), 'b.example', {
      forwarded: 'for=1.2.3.4;proto=https;host="mon.example.org:8443"',
    }),
    'https://mon.example.org:8443/b.js',
  );
  // The first proxy's word (nearest the client) when several are listed.
  assert.equal(
    await snippetSrc(proxied(['127.0.0.1']), 'c.example', {
      'x-forwarded-proto': 'https, http',
      'x-forwarded-host': 'mon.example.org, internal:8080',
    }),
    'https://mon.example.org/b.js',
  );
});

test('a peer that is not a trusted proxy, or a host that is not one, is not believed; [server] url comes first', async () => {
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
  assert.equal(await snippetSrc(proxied([]), 'd.example', forwarded), 'http://127.0.0.1:8080/b.js');
  assert.equal(
    await snippetSrc(proxied(['127.0.0.1']), 'e.example', {
      'x-forwarded-proto': 'gopher',
      'x-forwarded-host': 'a/b"><script>',
    }),
    'http://127.0.0.1:8080/b.js',
  );
  assert.equal(
    await snippetSrc(proxied(['127.0.0.1'], 'https://example.org/mon/'), 'f.example', forwarded),
    'https://example.org/mon/b.js',
  );
});
