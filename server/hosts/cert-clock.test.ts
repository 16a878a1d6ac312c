import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_TIME_HEADER } from '../../protocol/agent.ts';
import { definitionOf } from '../../protocol/check.ts';
import { DAY } from '../../protocol/durations.ts';
import { certificateStatus } from '../../runners/http.ts';
import type { RunOutcome } from '../../runners/run.ts';
import { certificateOnServerClock } from './cert-clock.ts';
import { agentCheck, hello, hostServer, runFrame, sample, T0 } from './testkit.ts';

/** An agent whose clock runs `offsetMs` from the server's sends a run of a certificate expiring at `expires`. */
async function runWithClock(t: { after(fn: () => unknown): void }, offsetMs: number, expires: number) {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const id = (await kit.inject('POST', '/api/v1/checks', agentCheck)).body.id as string;
  await kit.clock.advance(15_000);
  const agentNow = kit.clock.now() + offsetMs;
  // What the http runner writes, judged by the host's clock.
  const cert = certificateStatus(expires, agentNow + 40);
  const detail = ['200 OK', ...(cert.note ? [cert.note] : [])].join('; ');
  const res = await kit.send(
    token,
    [
      hello(agentNow),
      sample(agentNow),
      runFrame(id, agentNow, {
        status: cert.status,
        latencyMs: 40,
        detail,
        expiry: { kind: 'certificate', expires },
      }),
    ],
    { headers: { [AGENT_TIME_HEADER]: String(agentNow) } },
  );
  assert.deepEqual(res.body, { stored: 3, skipped: 0 });
  const { rec } = kit.engine.get(id)!;
  return { agent: { status: cert.status, detail }, status: rec.state.status, detail: rec.lastDetail };
}

test('a host a day ahead: a certificate 14.5 days from expiry is judged on the server clock, not degraded a day early', async (t) => {
  const run = await runWithClock(t, DAY, T0 + 14.5 * DAY);
  assert.equal(run.agent.status, 'degraded', 'by the host clock, within 14 days');
  assert.deepEqual([run.status, run.detail], ['up', '200 OK']);
});

test('a host a day behind: a certificate 13.5 days from expiry is degraded on the server clock', async (t) => {
  const run = await runWithClock(t, -DAY, T0 + 13.5 * DAY);
  assert.equal(run.agent.status, 'up');
  assert.deepEqual(
    [run.status, run.detail],
    ['degraded', '200 OK; certificate expires in 13 days (2026-01-14)'],
  );
});

test('the certificate judged again keeps what the other assertions said', () => {
  const def = definitionOf({
    ...agentCheck,
    expect: [{ bodyContains: 'ok', degraded: true }],
  } as Parameters<typeof definitionOf>[0]);
  const plain = definitionOf(agentCheck as Parameters<typeof definitionOf>[0]);
  const expires = T0 + 14.5 * DAY;
  const byHost = certificateStatus(expires, T0 + DAY + 40).note;
  const outcome = (status: RunOutcome['status'], detail: string): RunOutcome => ({
    status,
    latencyMs: 40,
    detail,
    expiry: { kind: 'certificate', expires },
  });
  const again = (o: RunOutcome, d = def) => {
    const r = certificateOnServerClock(o, d, T0, DAY);
    return [r.status, r.detail];
  };
  assert.deepEqual(
    again(outcome('degraded', `200 OK; body does not contain "ok"; ${byHost}`)),
    ['degraded', '200 OK; body does not contain "ok"'],
    'a failed degraded assertion stays',
  );
  assert.deepEqual(again(outcome('down', `503 Service Unavailable; ${byHost}`), plain), [
    'down',
    '503 Service Unavailable',
  ]);
  const cut = outcome('degraded', '200 OK; certificate expires in 13 d…');
  assert.equal(certificateOnServerClock(cut, def, T0, DAY), cut, 'a detail cut short stays as sent');
  const right = outcome('degraded', `200 OK; ${byHost}`);
  assert.equal(certificateOnServerClock(right, def, T0, 30_000), right, 'a clock within a minute is right');
  const expired = outcome('down', `200 OK; body does not contain "ok"; certificate expired today`);
  const e = { ...expired, expiry: { kind: 'certificate' as const, expires: T0 + DAY / 2 } };
  assert.equal(
    certificateOnServerClock(e, def, T0, DAY),
    e,
    'expired by the host clock only, with other failures: as sent',
  );
});
