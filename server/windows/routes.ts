import type { FastifyInstance } from 'fastify';
import type { WindowKind } from '../../protocol/notify.ts';
import type { Created } from '../../protocol/reads.ts';
import { principalName } from '../incidents/acknowledge.ts';
import { unauthorized } from '../problem.ts';
import type { WindowWrites } from './manage.ts';

type IdParams = { Params: { id: string } };

/** The path of each kind under /api/v1. */
const paths: Record<WindowKind, string> = { silence: 'silences', maintenance: 'maintenance' };

/**
 * `POST /api/v1/silences` and `/maintenance` (201 `{id}`), `PUT /{id}` (200 with the window as reads
 * show it), `DELETE /{id}` (204): docs/api-windows.md.
 */
export function registerWindows(app: FastifyInstance, writes: WindowWrites): void {
  for (const kind of ['silence', 'maintenance'] as const) {
    const base = `/api/v1/${paths[kind]}`;

    app.post(base, async (request, reply) => {
      // The access hook let only write callers through.
      if (!request.principal) throw unauthorized();
      const id = await writes.create(kind, request.body, principalName(request.principal));
      return reply.code(201).send({ id } satisfies Created);
    });

    app.put<IdParams>(`${base}/:id`, async (request) => writes.update(kind, request.params.id, request.body));

    app.delete<IdParams>(`${base}/:id`, async (request, reply) => {
      await writes.remove(kind, request.params.id);
      return reply.code(204).send();
    });
  }
}
