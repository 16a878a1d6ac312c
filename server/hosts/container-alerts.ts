import type { ContainerSample } from '../../protocol/agent.ts';
import { MINUTE } from '../../protocol/durations.ts';
import { samplesStopped } from './thresholds.ts';

/**
 * Container alerts (docs/hosts.md "Alerts"), pure: time comes in with each sample. Only containers of
 * a service are judged (the caller asks `membership`). A container fails when it
 * - restarts in a loop: 3 restarts or more within 10 minutes. A restart is seen sample to sample by
 *   `restartsSince`, the rule host events use too: the restart count rose (restarts by the restart
 *   policy; by how much it rose, never a drop: the count starts again at 0 when the daemon restarts),
 *   or it started again (a later `startedAt` on the same image: `docker restart`, autoheal, an outside
 *   supervisor, a container created anew under the same name, as `--rm` loops do), whichever says more;
 * - exited with an error: exited or dead with a non-zero exit code (so not restarting);
 * - stays unhealthy: its health check said unhealthy for 2 minutes or more.
 * Both spans need samples all along: after a gap in the host's samples longer than the agent's silence
 * timeout (`samplesStopped`: agent stopped, host rebooted) the 2 minutes unhealthy start again, and
 * restarts seen across the gap count from its start, the earliest they can have happened, so restarts
 * spread over an absence of more than 10 minutes are no loop.
 * It recovers once it runs and is healthy again (or has no health check) with no restart for 10
 * minutes. A restart or an OOM kill alone is no alert: it is evidence for incidents on its host.
 *
 * The state of a container name outlives its container: a new id under the same name carries on, and
 * a container gone from the samples is remembered for 10 minutes (`judgeGone`), so that a container
 * removed and created again at each turn of a loop is counted as restarting. A failing container gone
 * that long recovers as removed.
 */

export const LOOP_RESTARTS = 3;
export const LOOP_WINDOW_MS = 10 * MINUTE;
export const UNHEALTHY_FOR_MS = 2 * MINUTE;
/** How long the state of a container gone from the samples is kept. */
export const GONE_KEPT_MS = 10 * MINUTE;
/** Restart times kept at most: enough to say how many, bounded whatever the container does. */
const MAX_RESTART_TIMES = 100;

export type ContainerState = {
  /** The container's id: a new container of the same name starts its restart count again. */
  id: string;
  /** Its restart count (`RestartCount`) as last seen. */
  restarts: number;
  /** When it last started, as last seen (kept while it has not started). */
  startedAt: number | null;
  /** The image id it runs: starting on a new image is a deploy, not a restart. */
  imageId: string;
  /** Since when it is missing from the samples; null while it is there. */
  goneSince: number | null;
  /** When it restarted within the last 10 minutes, oldest first. */
  restartTimes: number[];
  /** Since when its health check says unhealthy. */
  unhealthySince: number | null;
  failingSince: number | null;
  /** While failing: what the alert said when it started failing. */
  detail: string | null;
};

export type ContainerTransition =
  | {
      to: 'failing';
      /** "restarted 4 times in 10 minutes", "exited with code 1", "unhealthy for 2 minutes". */
      detail: string;
      /** For an incident's title: "restarting in a loop", "exited with an error", "unhealthy". */
      summary: string;
    }
  | { to: 'recovered'; detail: string };

/**
 * Judges one sample of a container of a service; `state` is null the first time it is seen, `previous`
 * the time of the host's sample before this one (null: none).
 */
export function judgeContainer(
  state: ContainerState | null,
  c: ContainerSample,
  ts: number,
  previous: number | null,
): { state: ContainerState; transition: ContainerTransition | null } {
  const gap = samplesStopped(previous, ts);
  const restarted = state === null ? 0 : restartsSince(state, c, ts);
  const restartedAt = gap && previous !== null ? previous : ts;
  const restartTimes = [
    ...(state?.restartTimes ?? []),
    ...new Array<number>(restarted).fill(restartedAt),
  ].filter((t) => t > ts - LOOP_WINDOW_MS);
  const unhealthySince = c.health === 'unhealthy' ? ((gap ? null : state?.unhealthySince) ?? ts) : null;
  const next: ContainerState = {
    id: c.id,
    restarts: c.restarts,
    startedAt: c.startedAt ?? state?.startedAt ?? null,
    imageId: c.imageId,
    goneSince: null,
    restartTimes: restartTimes.slice(-MAX_RESTART_TIMES),
    unhealthySince,
    failingSince: state?.failingSince ?? null,
    detail: state?.detail ?? null,
  };
  if (next.failingSince !== null) {
    const healthy = c.health === null || c.health === 'healthy';
    if (c.state !== 'running' || !healthy || restartTimes.length > 0)
      return { state: next, transition: null };
    const detail = c.health === 'healthy' ? 'running and healthy again' : 'running again';
    return {
      state: { ...next, failingSince: null, detail: null },
      transition: { to: 'recovered', detail },
    };
  }
  const failure = failureOf(c, restartTimes.length, unhealthySince, ts);
  if (!failure) return { state: next, transition: null };
  return {
    state: { ...next, failingSince: ts, detail: failure.detail },
    transition: { to: 'failing', ...failure },
  };
}

/** A container as last seen under its name: what `restartsSince` compares a new sample with. */
export type LastSeen = {
  /** Its container id; null when not known (a `host_items` row stored before ids were kept). */
  id: string | null;
  restarts: number;
  startedAt: number | null;
  imageId: string | null;
  /** Since when it is missing from the samples; null while it is there. */
  goneSince: number | null;
};

/**
 * How many times the container of a name restarted between the sighting `before` and the sample `c`
 * at `ts`: the one rule for the restart loop alert and the `restart` host events (docs/hosts.md). The
 * rise of the restart count (a new container id counts its own from 0; a drop counts nothing), or 1
 * for a later start on the same image (whatever state it was seen in: exited and started again counts),
 * whichever says more. A name gone from the samples 10 minutes or more is forgotten: 0.
 */
export function restartsSince(before: LastSeen, c: ContainerSample, ts: number): number {
  if (before.goneSince !== null && ts - before.goneSince >= GONE_KEPT_MS) return 0;
  const sameContainer = before.id === null || before.id === c.id;
  const counted = sameContainer ? Math.max(0, c.restarts - before.restarts) : c.restarts;
  const startedAgain =
    before.startedAt !== null &&
    c.startedAt !== null &&
    c.startedAt > before.startedAt &&
    before.imageId === c.imageId;
  return Math.max(counted, startedAgain ? 1 : 0);
}

/**
 * A sample without the container (its runtime answered): its state is kept for 10 minutes from when
 * it went missing, then forgotten (null), a failing alert recovering as removed.
 */
export function judgeGone(
  state: ContainerState,
  ts: number,
): { state: ContainerState | null; transition: ContainerTransition | null } {
  const goneSince = state.goneSince ?? ts;
  if (ts - goneSince < GONE_KEPT_MS) return { state: { ...state, goneSince }, transition: null };
  const transition: ContainerTransition | null =
    state.failingSince === null ? null : { to: 'recovered', detail: 'removed' };
  return { state: null, transition };
}

/** The first failure that holds, in this order: a restart loop, an exit with an error, unhealthy. */
function failureOf(
  c: ContainerSample,
  recentRestarts: number,
  unhealthySince: number | null,
  ts: number,
): { detail: string; summary: string } | null {
  if (recentRestarts >= LOOP_RESTARTS)
    return { detail: `restarted ${recentRestarts} times in 10 minutes`, summary: 'restarting in a loop' };
  if ((c.state === 'exited' || c.state === 'dead') && c.exitCode !== null && c.exitCode !== 0) {
    const oom = c.oomKilled ? ' (killed for memory)' : '';
    return { detail: `exited with code ${c.exitCode}${oom}`, summary: 'exited with an error' };
  }
  if (unhealthySince !== null && ts - unhealthySince >= UNHEALTHY_FOR_MS) {
    const minutes = Math.floor((ts - unhealthySince) / MINUTE);
    return { detail: `unhealthy for ${minutes} minutes`, summary: 'unhealthy' };
  }
  return null;
}
