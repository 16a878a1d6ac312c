import type { ContainerSample } from '../../protocol/agent.ts';

/** A container of a sample, running, as the agent reports it; tests change what they judge. */
export const container = (over: Partial<ContainerSample> = {}): ContainerSample => ({
  id: 'a'.repeat(64),
  name: 'api-1',
  image: 'api:1.4',
  imageId: `sha256:${'b'.repeat(64)}`,
  state: 'running',
  health: null,
  restarts: 0,
  exitCode: null,
  oomKilled: false,
  startedAt: Date.UTC(2026, 10, 23, 11),
  finishedAt: null,
  cpu: 3,
  memory: 100_000_000,
  labels: {},
  ...over,
});
