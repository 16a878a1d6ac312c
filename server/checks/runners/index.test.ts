import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkKinds } from '../../../protocol/check.ts';
import { checkOf, contextOf } from './fixtures/context.ts';
import { runners } from './index.ts';

test('every kind except heartbeat has a runner', () => {
  assert.deepEqual(Object.keys(runners).sort(), checkKinds.filter((k) => k !== 'heartbeat').sort());
});

test('runners never throw: an aborted run is an outcome', async () => {
  const controller = new AbortController();
  controller.abort();
  const targets = {
    http: 'http://127.0.0.1:9/',
    tcp: '127.0.0.1:9',
    dns: 'a.test',
    ping: '127.0.0.1',
    domain: 'a.test',
  };
  for (const [kind, run] of Object.entries(runners)) {
    const check = checkOf({
      kind: kind as keyof typeof runners,
      target: targets[kind as keyof typeof targets],
      timeoutMs: 400,
    });
    const out = await run(
      check,
      contextOf({ signal: controller.signal, rdapBootstrapUrl: 'http://127.0.0.1:9/dns.json' }),
    );
    assert.deepEqual(out, { status: 'down', latencyMs: null, detail: 'timed out after 400 ms' }, kind);
  }
});
