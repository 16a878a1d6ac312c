import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_SILENT_AFTER_MS, SAMPLE_EVERY_MS } from '../../protocol/agent.ts';
import { MINUTE } from '../../protocol/durations.ts';
import type { HostRead } from '../../protocol/hosts.ts';
import { hello, hostServer, sample, T0 } from './testkit.ts';

/**
 * docs/hosts.md "Thresholds": "5 minutes above the limit" is 5 minutes of samples, as the agent's
 * frames bring them, not two samples far apart.
 */

const cpuAlerts = async (kit: Awaited<ReturnType<typeof hostServer>>) =>
  ((await kit.inject('GET', '/api/v1/hosts/web-3')).body as HostRead).alerting
    .filter((a) => a.key === 'host:web-3:cpu')
    .map((a) => [a.detail, a.since]);

test('CPU high before a stop and high after it is no 5 minutes above: they start from the return', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-3');
  const at = (ms: number) => ({ ms, ts: T0 + ms });
  // High at shutdown, then nothing for 20 minutes.
  assert.equal((await kit.send(token, [hello(T0), sample(T0, { cpu: 95 })])).status, 200);
  await kit.clock.advance(20 * MINUTE);
  // Back: the first sample after a start has no CPU yet, then high again.
  const back = at(20 * MINUTE);
  await kit.send(token, [hello(back.ts), sample(back.ts, { cpu: null })]);
  const high = at(back.ms + SAMPLE_EVERY_MS);
  await kit.clock.advance(SAMPLE_EVERY_MS);
  await kit.send(token, [sample(high.ts, { cpu: 95 })]);
  assert.deepEqual(await cpuAlerts(kit), [], 'not on the strength of two samples');

  // Every 15 s from then: it fails 5 minutes after the first high sample back.
  for (let ms = SAMPLE_EVERY_MS; ms <= 5 * MINUTE; ms += SAMPLE_EVERY_MS) {
    await kit.clock.advance(SAMPLE_EVERY_MS);
    await kit.send(token, [sample(high.ts + ms, { cpu: 95 })]);
    if (ms < 5 * MINUTE) assert.deepEqual(await cpuAlerts(kit), [], `${ms} ms after the return`);
  }
  assert.deepEqual(await cpuAlerts(kit), [['CPU above 90% for 5 minutes (95%)', high.ts + 5 * MINUTE]]);
  // The crossing recorded for incidents is dated from the return, not from before the stop.
  assert.equal(
    kit.count(
      "SELECT count(*) AS n FROM host_events WHERE host = 'web-3' AND kind = 'threshold' AND ts = ?",
      high.ts,
    ),
    1,
  );
});

test('samples of an outage arriving late are samples all along: the gap is in the samples, not in the frames', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-3');
  await kit.send(token, [hello(T0), sample(T0, { cpu: 95 })]);
  // The server unreachable for 6 minutes: the agent kept sampling and sends its spool at once.
  await kit.clock.advance(6 * MINUTE);
  const spooled = [];
  for (let ms = SAMPLE_EVERY_MS; ms <= 6 * MINUTE; ms += SAMPLE_EVERY_MS)
    spooled.push(sample(T0 + ms, { cpu: 95 }));
  assert.ok(6 * MINUTE > AGENT_SILENT_AFTER_MS);
  assert.equal((await kit.send(token, spooled)).status, 200);
  assert.deepEqual(await cpuAlerts(kit), [['CPU above 90% for 5 minutes (95%)', T0 + 5 * MINUTE]]);
});
