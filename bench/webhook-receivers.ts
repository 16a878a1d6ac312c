import { startReceiver } from '../server/http/fixtures/receiver.ts';
import type { WebhookPayload } from '../server/notify/channels/webhook.ts';

/**
 * The receivers of the notification benchmark, in their own process: `count` webhook endpoints that
 * answer 204 and note when each message arrived (wall clock) with the incident it is about. Tell the
 * parent their URLs, then `done` once `expected` messages arrived, then the arrivals when asked.
 */
const count = Number(process.argv[2] ?? 5);
const expected = Number(process.argv[3] ?? 0);

const receivers = await Promise.all(Array.from({ length: count }, () => startReceiver<WebhookPayload>()));
let arrived = 0;
for (const receiver of receivers)
  receiver.answer = () => {
    if (++arrived === expected) process.send?.({ done: true });
    return { status: 204 };
  };
process.send?.({ urls: receivers.map((r) => r.url) });
process.on('message', () =>
  process.send?.({
    arrivals: receivers.flatMap((r) =>
      r.received.map((m) => ({ incident: m.json.data.incident.id, at: m.at })),
    ),
  }),
);
process.on('disconnect', () => process.exit(0));
