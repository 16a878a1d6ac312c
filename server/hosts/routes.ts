import type { FastifyInstance } from 'fastify';
import {
  type AddedHost,
  addHostSchema,
  dismissSchema,
  type HostRead,
  type HostsList,
  hostAlertsSchema,
  type ItemSeries,
  monitorSchema,
} from '../../protocol/hosts.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { publicBase } from '../http/public-base.ts';
import { parseRange } from '../http/range.ts';
import { logSecurity } from '../http/security-log.ts';
import { notFound } from '../problem.ts';
import type { AgentFile } from './agent-file.ts';
import type { HostClocks } from './clock-ahead.ts';
import { dismissItems, monitorHost } from './discovered.ts';
import { installCommands } from './install.ts';
import { hadItem } from './item-reads.ts';
import { addHost, setHostAlerts } from './manage.ts';
import { readHost, readHostsList } from './read.ts';
import { removeHost } from './remove.ts';
import { readItemSeries } from './rollups.ts';
import { knownHosts } from './store.ts';

type NameParams = { Params: { name: string } };
type Query = { Querystring: Record<string, string | undefined> };

/** The host routes of the JSON API: hosts, their alerts, container and unit series, discovered items. */
export function registerHostRoutes(
  app: FastifyInstance,
  deps: Deps,
  engine: CheckEngine,
  clocks: HostClocks,
  agentFile: AgentFile,
  /** A host's removal committed: what keeps hosts in memory forgets it, and its data goes. */
  removed: (host: string) => void,
): void {
  app.post('/api/v1/hosts', async (request, reply) => {
    const { name } = addHostSchema.parse(request.body);
    // A person may make a write only as an admin (the access table): an admin's token is sent the
    // variables of mon.toml's checks, an API token's only those `[checks] api_env` lists.
    const by = request.principal?.kind === 'user' ? 'admin' : 'api';
    const { token, replaced } = await addHost(deps, name, by);
    // The event names the host, never the token.
    logSecurity(deps, request, 'host.token.created', { host: name, replaced, by });
    const serverUrl = publicBase(deps, request);
    const answer: AddedHost = {
      name,
      token,
      agentUrl: `${serverUrl}/agent/v1/agent.mjs`,
      install: installCommands({ serverUrl, token, hostName: name }),
      replaced,
    };
    return reply.code(replaced ? 200 : 201).send(answer);
  });

  // Each agent's version is compared with the agent file's: whether it runs the one served.
  const context = async () => ({ clocks, servedVersion: await agentFile.servedVersion() });

  app.get('/api/v1/hosts', async (): Promise<HostsList> => {
    const read = await context();
    return readHostsList(deps.store.read, deps.config.current(), deps.clock.now(), read);
  });

  app.get<NameParams & Query>('/api/v1/hosts/:name', async (request): Promise<HostRead> => {
    const span = parseRange(request.query, deps.clock.now());
    const host = readHost(engine, request.params.name, span, await context());
    if (!host) throw notFound(`no host ${request.params.name}`);
    return host;
  });

  app.put<NameParams>('/api/v1/hosts/:name/alerts', async (request, reply) => {
    const alerts = hostAlertsSchema.parse(request.body);
    await setHostAlerts(deps, request.params.name, alerts);
    return reply.code(204).send();
  });

  // mon's own extension of SPEC's host routes (docs/api-hosts.md): 204 once the host is removed; its
  // series, events and logs (a million rows for a big host: seconds of writer time) follow in bounded jobs.
  app.delete<NameParams>('/api/v1/hosts/:name', async (request, reply) => {
    const { name } = request.params;
    await removeHost(deps, engine, name, removed);
    logSecurity(deps, request, 'host.removed', { host: name });
    return reply.code(204).send();
  });

  const itemSeries = (
    host: string,
    kind: 'container' | 'unit',
    name: string,
    query: Query['Querystring'],
  ) => {
    const now = deps.clock.now();
    const span = parseRange(query, now);
    const db = deps.store.read;
    if (!knownHosts(db, deps.config.current()).has(host)) throw notFound(`no host ${host}`);
    if (!hadItem(db, host, kind, name)) throw notFound(`the host ${host} has no ${kind} ${name}`);
    return readItemSeries(db, host, kind, name, span.from, span.to, now);
  };

  app.get<{ Params: { name: string; container: string } } & Query>(
    '/api/v1/hosts/:name/containers/:container',
    async (request): Promise<ItemSeries> =>
      itemSeries(request.params.name, 'container', request.params.container, request.query),
  );

  app.get<{ Params: { name: string; unit: string } } & Query>(
    '/api/v1/hosts/:name/units/:unit',
    async (request): Promise<ItemSeries> =>
      itemSeries(request.params.name, 'unit', request.params.unit, request.query),
  );

  app.post('/api/v1/discovered/dismiss', async (request, reply) => {
    await dismissItems(deps, dismissSchema.parse(request.body).ids);
    return reply.code(204).send();
  });

  app.post('/api/v1/discovered/monitor', async (request, reply) => {
    const body = monitorSchema.parse(request.body);
    const answer = await monitorHost(engine, { ...body, check: body.check ?? null });
    return reply.code(201).send(answer);
  });
}
