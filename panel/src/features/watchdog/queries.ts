import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  WatchdogEdgeBody,
  WatchdogHeartbeatBody,
  WatchdogKind,
  WatchdogRead,
} from '../../../../protocol/notify.ts';
import { del, get, put } from '../../lib/api.ts';
import { watchdogKeys } from './keys.ts';

const paths: Record<WatchdogKind, string> = { edge: '/watchdog/edge', heartbeat: '/watchdog/heartbeat-url' };

/**
 * `GET /watchdog`. Requests go out on mon's own timer, not on a change anyone makes, so no live
 * update names them: the screen asks again every few seconds while it is open.
 */
export function useWatchdog() {
  return useQuery({
    queryKey: watchdogKeys.read,
    queryFn: () => get<WatchdogRead>('/watchdog'),
    refetchInterval: 3_000,
  });
}

export function useRefreshWatchdog(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: watchdogKeys.read });
}

/** Sets or replaces a target; the server sends the first request right after it answers. */
export function putTarget(
  kind: WatchdogKind,
  body: WatchdogEdgeBody | WatchdogHeartbeatBody,
): Promise<unknown> {
  return put(paths[kind], body);
}

export function useRemoveTarget(kind: WatchdogKind, onSettled: () => void) {
  const refresh = useRefreshWatchdog();
  return useMutation({
    mutationFn: () => del(paths[kind]),
    onSettled: () => {
      onSettled();
      void refresh();
    },
  });
}
