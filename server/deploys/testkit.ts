import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ChangeRow, DeployRow } from '../../protocol/deploys.ts';
import type { LiveKey } from '../../protocol/live.ts';
import type { TokenScope } from '../auth/access.ts';
import { createToken } from '../auth/tokens.ts';
import { FakeClock } from '../clock.ts';
import { loadConfigText } from '../config/load.ts';
import { staticConfig } from '../config/service.ts';
import type { Log } from '../log.ts';
import type { ServerOptions } from '../start.ts';
import { createTestServer } from '../testing.ts';
import { changesBetween, deploysBetween } from './read.ts';

/** The secret the test servers' webhook is signed with. */
export const hookSecret = 'a webhook secret for tests';

/** mon.toml of the tests: two services, `shop` built from the acme/shop repository, and the webhook. */
export const testToml = `
[codehost]
secret = "\${HOOK_SECRET}"

[[service]]
name = "shop"
repository = "acme/shop"

[[service]]
name = "billing"
`;

export type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

/**
 * A whole server listening on loopback, on a fake clock, with the configuration of `toml` (loaded as
 * mon.toml is), tokens of every scope, and requests sent over real HTTP.
 */
export async function deployServer(
  options: { toml?: string; env?: Record<string, string>; store?: ServerOptions['store']; log?: Log } = {},
) {
  const env = { HOOK_SECRET: hookSecret, ...options.env };
  const loaded = loadConfigText(options.toml ?? testToml, { env });
  if (!loaded.ok) assert.fail(loaded.error);
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const server = await createTestServer({
    clock,
    env,
    config: staticConfig(loaded.config),
    ...(options.store ? { store: options.store } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const tokens = new Map<TokenScope, string>();
  for (const scope of ['read', 'write', 'deploy', 'mcp'] as const) {
    tokens.set(scope, (await createToken(server.deps, { scope, label: scope, createdBy: 'test' })).token);
  }
  const keys: LiveKey[][] = [];
  server.deps.bus.subscribe((published) => keys.push([...published]));

  const send = async (
    path: string,
    body: string | Buffer,
    headers: Record<string, string>,
  ): Promise<Answer> => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: new Uint8Array(bytes) });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Answer['body']) : {},
    };
  };
  const auth = (scope: TokenScope | null): Record<string, string> =>
    scope === null ? {} : { authorization: `Bearer ${tokens.get(scope)}` };

  return {
    server,
    clock,
    keys,
    /** POSTs raw bytes with exactly these headers. */
    send,
    auth,
    /** POSTs `body` to the deploy API as JSON (an object) or as it is (a string), with a token of `scope`. */
    post(
      path: '/api/deploys' | '/api/changes',
      body: Record<string, unknown> | string | Buffer,
      options: { scope?: TokenScope | null; contentType?: string } = {},
    ): Promise<Answer> {
      const json = typeof body !== 'string' && !Buffer.isBuffer(body);
      const contentType =
        options.contentType ?? (json ? 'application/json' : 'application/x-www-form-urlencoded');
      return send(path, json ? JSON.stringify(body) : (body as string | Buffer), {
        ...auth(options.scope === undefined ? 'deploy' : options.scope),
        'content-type': contentType,
      });
    },
    /** Delivers a webhook event signed with `secret` (the right one by default), or unsigned with `null`. */
    deliver(
      event: string,
      payload: unknown,
      options: { secret?: string | null; raw?: Buffer; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      const body = options.raw ?? Buffer.from(JSON.stringify(payload));
      const secret = options.secret === undefined ? hookSecret : options.secret;
      return send('/hooks/codehost', body, {
        'content-type': 'application/json',
        'x-github-event': event,
        ...(secret === null ? {} : { 'x-hub-signature-256': signature(body, secret) }),
        ...options.headers,
      });
    },
    deploys: (): DeployRow[] => deploysBetween(server.deps.store.read, 0, Number.MAX_SAFE_INTEGER),
    changes: (): ChangeRow[] => changesBetween(server.deps.store.read, 0, Number.MAX_SAFE_INTEGER),
    async counter(name: 'ingestAccepted' | 'ingestRejected', label: string): Promise<number> {
      const { values } = await server.deps.metrics[name].get();
      return values.find((v) => Object.values(v.labels).includes(label))?.value ?? 0;
    },
  };
}

/** `X-Hub-Signature-256` of `body` under `secret`, as GitHub sends it. */
export function signature(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
