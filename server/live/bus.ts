import type { LiveKey } from '../../protocol/live.ts';

/**
 * In-process invalidation bus: engines publish the keys of what changed (SPEC "Live update stream";
 * built with `liveKeys` of protocol/live.ts); the stream coalesces them.
 */
export type Listener = (keys: readonly LiveKey[]) => void;

export class Bus {
  private readonly listeners = new Set<Listener>();

  publish(...keys: LiveKey[]): void {
    if (keys.length === 0) return;
    for (const listener of this.listeners) listener(keys);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
