import { randomBytes } from 'node:crypto';
import type { ChannelTestResult } from '../../protocol/notify.ts';
import { channelImpls } from './channels/index.ts';
import type { ChannelTarget, Reach, SendResult } from './channels/kind.ts';
import type { Message } from './message.ts';
import { hideSecrets, secretsOf } from './secrets.ts';

/**
 * The channel test button (`POST /api/v1/channels/{name}/test`): a message that says it is a test,
 * sent through the kind's `send`, the same function real notifications use, so that it meets the same
 * private-address refusal and the same platform answers.
 */

/** How long a test may take before it counts as not delivered. */
export const TEST_TIMEOUT_MS = 15_000;

/** An example incident, labelled a test in its title, its alert and (by `change: 'test'`) every line around them. */
export function testMessage(now: number, serverUrl: string | null): Message {
  return {
    change: 'test',
    ts: now,
    incident: {
      id: '0000000000000000',
      title: 'Test message from mon: nothing is wrong',
      service: 'example',
      services: ['example'],
      startedAt: now,
      acknowledgedAt: null,
      acknowledgedBy: null,
      resolvedAt: null,
      inMaintenance: false,
    },
    failing: [
      {
        name: 'example check',
        service: 'example',
        host: null,
        detail: 'a test: no check failed',
        since: now,
        recoveredAt: null,
        impact: false,
      },
    ],
    alertCount: 1,
    failingCount: 1,
    cause: null,
    url: serverUrl === null ? null : `${serverUrl.replace(/\/+$/, '')}/settings/channels`,
    by: null,
  };
}

/** Sends the test message to `channel` and says what happened; never throws, never shows a secret. */
export async function sendTest(
  channel: ChannelTarget,
  message: Message,
  reach: Reach,
): Promise<ChannelTestResult> {
  const started = performance.now();
  let result: SendResult;
  try {
    result = await channelImpls[channel.kind].send({
      channel,
      message,
      messageId: `test-${randomBytes(8).toString('hex')}`,
      attempt: 1,
      thread: null,
      ...reach,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
  } catch (error) {
    // `send` answers its failures; this is only a safety net for one that throws.
    result = { ok: false, permanent: false, error: String((error as Error)?.message ?? error) };
  }
  const latencyMs = Math.round(performance.now() - started);
  if (result.ok) return { delivered: true, error: null, permanent: false, latencyMs };
  return {
    delivered: false,
    error: hideSecrets(result.error, secretsOf(channel)),
    permanent: result.permanent,
    latencyMs,
  };
}
