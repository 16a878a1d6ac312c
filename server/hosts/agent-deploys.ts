import { recordReport } from '../deploys/record.ts';
import { serviceExists } from '../deploys/store.ts';
import type { Tx } from '../store/writer.ts';
import type { ImageChange } from './items.ts';

/** Deploy fields are at most 500 characters (SPEC Limits). */
const FIELD_MAX = 500;
const clip = (text: string) => (text.length > FIELD_MAX ? `${text.slice(0, FIELD_MAX - 1)}…` : text);

/** `sha256:0123456789abcdef…` → `0123456789ab`, as `docker images` shows an image id. */
export function shortImageId(imageId: string): string {
  return imageId.replace(/^sha256:/, '').slice(0, 12);
}

/**
 * A container that started from a new image is a deploy with source `agent` (SPEC Inbound events):
 * version = the image reference and its short id (`nginx:1.27 (0123456789ab)`), merged with a deploy
 * of the same service and version within 2 minutes (the API's, the webhook's, or the same image
 * rolled out on another host). A deploy needs a service: a container of none (or of a service not
 * stored yet) records a change bound to its host instead. Both go through the deploys feature's
 * `recordReport` in the frame's writer job, so they commit with the frame that showed them.
 */
export function recordImageChange(tx: Tx, host: string, ts: number, change: ImageChange): void {
  const { container: c, service, before } = change;
  const was = `${before.image ?? 'an image'} (${shortImageId(before.imageId ?? '')})`;
  const now = `${c.image} (${shortImageId(c.imageId)})`;
  const description = clip(`container ${c.name} on ${host}: ${was} → ${now}`);
  if (service !== null && serviceExists(tx.db, service)) {
    const version = clip(now);
    recordReport(tx, {
      type: 'deploy',
      report: { service, version, ts, by: null, url: null, description, source: 'agent', host },
    });
    return;
  }
  const what = clip(`container ${c.name} started from a new image ${now}`);
  recordReport(tx, {
    type: 'change',
    report: {
      ts,
      kind: 'change',
      what,
      service: null,
      host,
      by: null,
      url: null,
      description,
      source: 'agent',
    },
  });
}
