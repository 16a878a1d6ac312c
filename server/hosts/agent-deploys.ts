import { liveKeys } from '../../protocol/live.ts';
import { recordChange, recordDeploy, serviceExists } from '../deploys/store.ts';
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
 * stored yet) records a change bound to its host instead.
 */
export function recordImageChange(tx: Tx, host: string, ts: number, change: ImageChange): void {
  const { container: c, service, before } = change;
  const was = `${before.image ?? 'an image'} (${shortImageId(before.imageId ?? '')})`;
  const now = `${c.image} (${shortImageId(c.imageId)})`;
  const description = clip(`container ${c.name} on ${host}: ${was} → ${now}`);
  if (service !== null && serviceExists(tx.db, service)) {
    recordDeploy(tx.db, {
      service,
      version: clip(now),
      ts,
      by: null,
      url: null,
      description,
      source: 'agent',
      host,
    });
    tx.invalidate(liveKeys.overview, liveKeys.incidents, liveKeys.service(service));
    return;
  }
  recordChange(tx.db, {
    ts,
    kind: 'change',
    what: clip(`container ${c.name} started from a new image ${now}`),
    service: null,
    host,
    by: null,
    url: null,
    description,
    source: 'agent',
  });
  tx.invalidate(liveKeys.overview, liveKeys.incidents);
}
