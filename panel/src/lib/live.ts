import type { Query, QueryClient } from '@tanstack/react-query';

/**
 * The live update stream (`GET /api/v1/stream`) mapped onto query keys:
 * - `*` → every query
 * - `overview` → ['overview'], ['services']
 * - `service:<name>` → ['service', name], ['services'], ['overview'] and the check queries of that service
 * - `incidents` → ['incidents']; `incident:<id>` → ['incident', id]; `drafts` → ['drafts']
 * Check queries are keyed ['check', id, ...]; which service a check belongs to is learned from its data.
 */

const checkService = new Map<string, string>();

/** Remembers the service of a check so that `service:<name>` reaches its queries. */
export function noteCheckService(checkId: string, service: string): void {
  checkService.set(checkId, service);
}

export function invalidateKeys(client: QueryClient, keys: readonly string[]): void {
  if (keys.includes('*')) {
    void client.invalidateQueries();
    return;
  }
  for (const key of keys) {
    if (key === 'overview') {
      void client.invalidateQueries({ queryKey: ['overview'] });
      void client.invalidateQueries({ queryKey: ['services'] });
    } else if (key.startsWith('service:')) {
      const name = key.slice('service:'.length);
      void client.invalidateQueries({ queryKey: ['service', name] });
      void client.invalidateQueries({ queryKey: ['services'] });
      void client.invalidateQueries({ queryKey: ['overview'] });
      void client.invalidateQueries({
        predicate: (query: Query) => {
          if (query.queryKey[0] !== 'check') return false;
          const known = checkService.get(String(query.queryKey[1]));
          // A check whose service is not known yet may belong to it: refetching is the safe side.
          return known === undefined || known === name;
        },
      });
    } else if (key === 'incidents' || key === 'drafts') {
      void client.invalidateQueries({ queryKey: [key] });
    } else if (key.startsWith('incident:')) {
      void client.invalidateQueries({ queryKey: ['incident', key.slice('incident:'.length)] });
    }
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
    source.onmessage = (event: MessageEvent<string>) => {
      try {
        const data = JSON.parse(event.data) as { invalidate?: unknown };
        if (Array.isArray(data.invalidate)) invalidateKeys(client, data.invalidate.map(String));
      } catch {
        // Not ours to read; the stream only sends invalidations.
      }
    };
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
