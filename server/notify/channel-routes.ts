import type { FastifyInstance } from 'fastify';
import type { ChannelBody, ChannelCreated, ChannelTestResult } from '../../protocol/notify.ts';
import type { Deps } from '../deps.ts';
import { principalName } from '../incidents/acknowledge.ts';
import { conflict, invalid, notFound, tooMany, unauthorized } from '../problem.ts';
import { channelBodySchema, isFileStyleName, settingsOfBody } from './channel-body.ts';
import { channelDeleted } from './channel-gone.ts';
import { deleteChannel, insertChannel, storedChannel, updateChannel } from './channel-store.ts';
import { sendTest, TEST_TIMEOUT_MS, testMessage } from './channel-test.ts';
import type { Reach } from './channels/kind.ts';
import { channelNamed } from './targets.ts';

type NameParams = { Params: { name: string } };

/**
 * Channel routes of the JSON API (SPEC "JSON API under /api/v1", docs/notifications.md "Channels"):
 * add, change and remove channels made in the panel or the API, and test any channel, the file's too.
 * Channels of mon.toml (`[[alert]]`) are changed only there: 409.
 */
export function registerChannels(app: FastifyInstance, deps: Deps, reach: Reach): void {
  // Called inside writer jobs, so that a reload of mon.toml cannot come between the check and the write.
  const refuseFileChannel = (name: string) => {
    if (deps.config.current().managed.alerts.has(name))
      throw conflict(`the channel "${name}" is set in mon.toml; change it there`);
  };
  // A mon.toml rejected for taking the name of a channel just removed may load now.
  const retryRejectedFile = () => {
    if (deps.config.error()) deps.config.reload();
  };

  app.post('/api/v1/channels', async (request, reply) => {
    if (!request.principal) throw unauthorized();
    const body: ChannelBody = channelBodySchema.parse(request.body);
    const { name, kind } = body;
    if (isFileStyleName(name)) {
      throw invalid(
        'name',
        `"${name}" is the kind of name mon gives an [[alert]] table without a name; choose another`,
      );
    }
    const settings = settingsOfBody(body, null);
    const createdBy = principalName(request.principal);
    await deps.store.writer.run((db) => {
      refuseFileChannel(name);
      if (storedChannel(db, name)) throw conflict(`a channel named "${name}" exists`);
      insertChannel(db, { name, kind, settings }, { createdBy, now: deps.clock.now() });
    });
    return reply.code(201).send({ name } satisfies ChannelCreated);
  });

  app.put<NameParams>('/api/v1/channels/:name', async (request, reply) => {
    const { name } = request.params;
    const body: ChannelBody = channelBodySchema.parse(request.body);
    if (body.name !== name) throw invalid('name', `must be "${name}": a channel keeps its name`);
    await deps.store.writer.run((db) => {
      refuseFileChannel(name);
      const stored = storedChannel(db, name);
      if (!stored) throw notFound(`no channel ${name}`);
      if (body.kind !== stored.kind) {
        throw invalid('kind', `must be ${stored.kind}: a channel keeps its kind; add a new channel instead`);
      }
      updateChannel(db, name, settingsOfBody(body, stored.settings), deps.clock.now());
    });
    return reply.code(204).send();
  });

  app.delete<NameParams>('/api/v1/channels/:name', async (request, reply) => {
    const { name } = request.params;
    const removed = await deps.store.writer.run((db, tx) => {
      refuseFileChannel(name);
      if (!deleteChannel(db, name)) return false;
      channelDeleted(db, tx, name, deps.clock.now());
      return true;
    });
    if (!removed) throw notFound(`no channel ${name}`);
    retryRejectedFile();
    return reply.code(204).send();
  });

  // One test at a time, server-wide: a test holds a connection to somebody else's server.
  let running: { startedAt: number } | null = null;
  app.post<NameParams>('/api/v1/channels/:name/test', async (request): Promise<ChannelTestResult> => {
    const { name } = request.params;
    const config = deps.config.current();
    const channel = channelNamed(deps.store.read, config, name);
    if (!channel) throw notFound(`no channel ${name}`);
    if (running) {
      const left = TEST_TIMEOUT_MS - (performance.now() - running.startedAt);
      throw tooMany(
        Math.max(1, Math.ceil(left / 1000)),
        'another channel test is running; one runs at a time',
      );
    }
    running = { startedAt: performance.now() };
    try {
      const result = await sendTest(channel, testMessage(deps.clock.now(), config.server.url), reach);
      deps.log.info('channel test', {
        channel: name,
        kind: channel.kind,
        delivered: result.delivered,
        latencyMs: result.latencyMs,
        ...(result.error === null ? {} : { error: result.error }),
      });
      return result;
    } finally {
      running = null;
    }
  });
}
