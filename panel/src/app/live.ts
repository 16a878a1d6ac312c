import type { QueryClient } from '@tanstack/react-query';
import { isLiveKey, type LiveKey } from '../../../protocol/live.ts';
import { analyticsKeys } from '../features/analytics/keys.ts';
import { cachedService, checkKeys } from '../features/checks/keys.ts';
import { incidentKeys } from '../features/incidents/keys.ts';
import { overviewKeys } from '../features/overview/keys.ts';
import { serviceKeys } from '../features/services/keys.ts';

/**
 * The live update stream (`GET /api/v1/stream`) mapped onto the features' query keys:
 * - `*` → every query
 * - `overview` → the overview and the services list
 * - `service:<name>` → that service, the services list, the overview, and the check queries of that
 *   service (detail, definition, history); a check's service is read from its cached detail or
 *   definition, and a check whose service is not cached is reloaded too
 * - `incidents` → the incident lists and the overview (its open incidents); `incident:<id>` → that
 *   incident; `drafts` → ['drafts']
 * - `analytics` (tracker events stored) → the analytics reads and their lists
 * This module reads no browser global until `connectLive` runs, so node can test the mapping.
 */
export function invalidateKeys(client: QueryClient, keys: readonly LiveKey[]): void {
  if (keys.includes('*')) {
    void client.invalidateQueries();
    return;
  }
  const reload = (queryKey: readonly unknown[]) => void client.invalidateQueries({ queryKey });
  for (const key of keys) {
    if (key === 'overview') {
      reload(overviewKeys.all);
      reload(serviceKeys.list);
    } else if (key.startsWith('service:')) {
      const name = key.slice('service:'.length);
      reload(serviceKeys.one(name));
      reload(serviceKeys.list);
      reload(overviewKeys.all);
      void client.invalidateQueries({
        queryKey: checkKeys.all,
        predicate: (query) => {
          const known = cachedService(client, String(query.queryKey[1]));
          // A check whose service is not known yet may belong to it: reloading is the safe side.
          return known === undefined || known === name;
        },
      });
    } else if (key === 'incidents') {
      reload(incidentKeys.all);
      reload(overviewKeys.all);
    } else if (key.startsWith('incident:')) {
      reload(incidentKeys.one(key.slice('incident:'.length)));
    } else if (key === 'drafts') {
      reload([key]);
    } else if (key === 'analytics') {
      reload(analyticsKeys.all);
    }
  }
}

/** The keys of one stream event (`data: {"invalidate": [...]}`); keys this version does not know are left out. */
export function eventKeys(data: string): LiveKey[] {
  try {
    const parsed = JSON.parse(data) as { invalidate?: unknown };
    return Array.isArray(parsed.invalidate) ? parsed.invalidate.filter(isLiveKey) : [];
  } catch {
    // Not ours to read; the stream only sends invalidations.
    return [];
  }
}

export type LiveState = 'connecting' | 'live' | 'offline';

/**
 * Keeps one EventSource open while signed in. The browser retries dropped connections itself; when
 * the server refuses (too many streams, restart), this reconnects with backoff. After any gap every
 * query is refetched, since events sent meanwhile were missed.
 */
export function connectLive(client: QueryClient, onState: (state: LiveState) => void): () => void {
  let source: EventSource | null = null;
  let retryTimer = 0;
  let attempt = 0;
  let hadGap = false;
  let stopped = false;

  const open = () => {
    onState('connecting');
    source = new EventSource('/api/v1/stream');
    source.onopen = () => {
      attempt = 0;
      onState('live');
      if (hadGap) void client.invalidateQueries();
      hadGap = false;
    };
    source.onmessage = (event: MessageEvent<string>) => invalidateKeys(client, eventKeys(event.data));
    source.onerror = () => {
      hadGap = true;
      onState('offline');
      if (source?.readyState === EventSource.CLOSED) {
        source = null;
        const delay = Math.min(30_000, 1000 * 2 ** attempt++) * (0.75 + Math.random() / 2);
        retryTimer = window.setTimeout(() => {
          if (!stopped) open();
        }, delay);
      }
    };
  };

  open();
  return () => {
    stopped = true;
    window.clearTimeout(retryTimer);
    source?.close();
  };
}
