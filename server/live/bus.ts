/**
 * In-process invalidation bus: engines publish the keys of what changed (SPEC "Live update stream":
 * `incident:<id>`, `incidents`, `overview`, `service:<name>`, `drafts`, `*`); the stream coalesces them.
 */
export type Listener = (keys: readonly string[]) => void;

export class Bus {
  private readonly listeners = new Set<Listener>();

  publish(...keys: string[]): void {
    if (keys.length === 0) return;
    for (const listener of this.listeners) listener(keys);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
