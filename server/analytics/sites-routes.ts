import type { FastifyInstance } from 'fastify';
import { type SiteCreated, siteBodySchema } from '../../protocol/analytics.ts';
import { defaultServiceName } from '../../protocol/analytics-constants.ts';
import type { CheckBody } from '../../protocol/check.ts';
import { liveKeys } from '../../protocol/live.ts';
import { nameProblem } from '../../protocol/text.ts';
import type { CheckEngine } from '../checks/engine.ts';
import { insertApiCheck, newApiCheck } from '../checks/manage.ts';
import { withHeaderValues } from '../checks/routes.ts';
import { ensureService } from '../checks/store.ts';
import { publicBase } from '../http/public-base.ts';
import { conflict, invalid } from '../problem.ts';
import { exists } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { removeSite, siteBeingRemoved } from './site-removal.ts';
import { siteName } from './sites.ts';
import { trackerSnippet } from './tracker.ts';
import type { Sites } from './types.ts';

type KnownSites = Sites & { refresh(): void; forget(domain: string): void };

/**
 * `POST /api/v1/sites`: atomic; creates the service when missing and the check, if any; answers the
 * snippet. `DELETE /api/v1/sites/{domain}` (mon's own, in the shape of `DELETE /api/v1/hosts/{name}`):
 * 204 once the site is removed; `removed` then forgets it in memory and deletes its data.
 */
export function registerSites(
  app: FastifyInstance,
  engine: CheckEngine,
  sites: KnownSites,
  removed: (domain: string) => void,
): void {
  app.post('/api/v1/sites', async (request, reply) => {
    const body = siteBodySchema.parse(request.body);
    const service = body.service ?? defaultServiceName(body.domain);
    // A domain may be longer than a service name may be.
    if (nameProblem(service) !== null) throw invalid('service', 'required for a domain this long');
    const added = await addSite(engine, sites, { domain: body.domain, service, check: body.check ?? null });
    const answer: SiteCreated = {
      ...added,
      snippet: trackerSnippet(publicBase(engine.deps, request), added.domain),
    };
    return reply.code(201).send(answer);
  });

  app.delete<{ Params: { domain: string } }>('/api/v1/sites/:domain', async (request, reply) => {
    // As `POST /e` takes it: any case, a trailing dot or none.
    const domain = siteName(request.params.domain);
    await removeSite(engine.deps, domain, {
      forget: sites.forget,
      undo: sites.refresh,
      removed: (gone) => {
        sites.refresh();
        removed(gone);
      },
    });
    return reply.code(204).send();
  });
}

/**
 * In one writer job: creates the service when missing (a panel service), adds the check, if any, as
 * `POST /checks` would, and stores the site. Any refusal leaves nothing behind. The site is known to
 * `POST /e` once committed.
 */
async function addSite(
  engine: CheckEngine,
  sites: KnownSites,
  input: { domain: string; service: string; check: CheckBody | null },
): Promise<Omit<SiteCreated, 'snippet'>> {
  const { deps } = engine;
  const { domain, service } = input;
  if (input.check && input.check.service !== service) {
    throw invalid('check.service', `must be the site's service ("${service}")`);
  }
  const rec = input.check
    ? newApiCheck(engine, withHeaderValues(input.check, null, 'check.'), 'check.')
    : null;
  const now = deps.clock.now();
  await deps.store.writer.run((db, tx) => {
    // Read inside the job: a mon.toml loaded meanwhile, or a site added meanwhile, counts.
    const config = deps.config.current();
    const inFile = config.services.find((s) => s.sites.includes(domain));
    if (inFile) throw conflict(`the site ${domain} belongs to the service "${inFile.name}" in mon.toml`);
    if (exists(db, 'SELECT 1 FROM sites WHERE domain = ?', domain)) {
      throw conflict(`the site ${domain} exists`);
    }
    if (siteBeingRemoved(db, domain)) {
      throw conflict(
        `the site ${domain} was just removed and its data is being deleted; add it again in a moment`,
      );
    }
    if (
      config.services.some((s) => s.name === service) ||
      exists(db, 'SELECT 1 FROM services WHERE name = ? AND managed = 1', service)
    ) {
      throw conflict(`the service "${service}" is defined in mon.toml; list the site in its sites there`);
    }
    if (exists(db, 'SELECT 1 FROM checks WHERE name = ?', service)) {
      throw conflict(`a check named "${service}" exists`);
    }
    ensureService(db, service, now);
    if (rec) insertApiCheck(engine, db, tx, rec, 'check.');
    statement(db, 'INSERT INTO sites (domain, service, created_at) VALUES (?, ?, ?)').run(
      domain,
      service,
      now,
    );
    tx.afterCommit(() => sites.refresh());
    tx.invalidate(liveKeys.service(service), liveKeys.overview);
  });
  return { domain, service, check: rec?.id ?? null };
}
