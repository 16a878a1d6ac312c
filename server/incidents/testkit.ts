import assert from 'node:assert/strict';
import type { IncidentRead, IncidentsList } from '../../protocol/incidents.ts';
import type { RunStatus } from '../checks/state.ts';
import { type Any, addHost, checkServer, liveConfig } from '../checks/testkit.ts';
import type { FileService } from '../config/core.ts';
import type { LiveConfig } from '../config/service.ts';

/** A `[[service]]` of mon.toml as the loader gives it. */
export const fileService = (name: string, dependsOn: string[] = [], hosts: string[] = []): FileService => ({
  name,
  hosts,
  sites: [],
  dependsOn,
  tier: null,
});

/**
 * A test server (admin token, fake clock) with these `[[service]]`s (and `more` of the configuration),
 * whose checks run from an agent: the test records their runs, as the agent's frames would.
 */
export async function incidentServer(
  services: FileService[] = [],
  more: Partial<LiveConfig> = {},
  options: Omit<Parameters<typeof checkServer>[0], 'config'> = {},
) {
  const config = liveConfig({ ...more, services });
  const kit = await checkServer({ ...options, config: config.service });
  // The host its checks run from.
  await addHost(kit.server, 'agent1');
  const { clock, engine, inject } = kit;
  const check = async (name: string, service: string): Promise<string> => {
    const body = { name, service, kind: 'tcp', target: 'db.internal:5432', from: 'agent1', everyMs: 10_000 };
    const res = await inject('POST', '/api/v1/checks', body);
    assert.equal(res.status, 201, res.text);
    return (res.body as Any).id as string;
  };
  const run = (
    id: string,
    status: RunStatus,
    detail = status === 'down' ? 'connection refused' : 'connected',
  ) => engine.recordRun(id, { status, latencyMs: status === 'down' ? null : 12, detail }, clock.now());
  /** Two failed runs 10 s apart: the check goes down. */
  const fail = async (id: string) => {
    await run(id, 'down');
    await clock.advance(10_000);
    await run(id, 'down');
  };
  /** Two successes 3 minutes apart: the check is up again. */
  const recover = async (id: string) => {
    await run(id, 'up');
    await clock.advance(180_000);
    await run(id, 'up');
  };
  const list = async (query = '') => {
    const res = await inject('GET', `/api/v1/incidents${query}`);
    assert.equal(res.status, 200, res.text);
    return (res.body as IncidentsList).incidents;
  };
  const read = async (id: string) => {
    const res = await inject('GET', `/api/v1/incidents/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body as IncidentRead;
  };
  return { ...kit, config, check, run, fail, recover, list, read };
}
