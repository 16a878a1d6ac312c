import type { Path, PathError } from './paths.ts';
import type { LiveConfig } from './sections.ts';

/**
 * Names that live outside the file and that a file check or service must not take: panel checks
 * (made through the API). Never list file-managed checks here, nor command checks of hosts' checks
 * files: the file wins over those (the host's check gives way, checks/file-sync.ts).
 */
export type OutsideNames = {
  /** `from`: the host a panel check runs from, which the file must not make unknown. */
  checks: { name: string; source: 'panel'; from?: string | null }[];
  /** Services that exist outside the file, with what holds them; a file check must not take their names. */
  services?: PanelService[];
  /** Notification channels made in the panel: an `[[alert]]` must not take their names. */
  channels?: string[];
  /** Hosts known outside the file (added through the API or by an agent, linked to a service): a check's `from` may name them. */
  hosts?: string[];
};

/** A service made outside the file and what holds it: panel checks, sites added or hosts linked through the API. */
export type PanelService = { name: string; checks: boolean; sites: boolean; hosts: boolean };

type Parts = Pick<LiveConfig, 'services' | 'hosts' | 'checks' | 'alerts'>;

/**
 * When the loader left out tables with errors: `at` turns a position in `parts` (such as a check's
 * `index`) into the table's position in the file, and `alsoServices` are the service names of the
 * left-out tables, which `depends_on` may name without being told they are unknown.
 */
export type LeftOut = {
  at?: (table: string, position: number) => number;
  alsoServices?: ReadonlySet<string>;
};

/**
 * The rules of the file as a whole, across sections; each section checks only its own tables.
 * Checks (heartbeats included) and services share one name space across the file, the panel and
 * hosts' checks files; hosts and alerts have their own. `depends_on` names services of `[[service]]`
 * or of `[[check]]`; a check's `from`, the file's or a panel check's, names a host of the file or one
 * known outside it. `outside` lists what is not in the file (panel checks and services, panel
 * channels, known hosts).
 */
export function collisions(parts: Parts, outside: OutsideNames, partial: LeftOut = {}): PathError[] {
  const at = (table: string, position: number) => partial.at?.(table, position) ?? position;
  const known = new Set([
    ...parts.services.map((s) => s.name),
    ...parts.checks.map((c) => c.body.service),
    ...(partial.alsoServices ?? []),
  ]);
  const errors: PathError[] = dependencyErrors(parts.services, known, at);
  const duplicates = (items: { name: string; path: Path }[], what: string) => {
    const first = new Map<string, Path>();
    for (const item of items) {
      const earlier = first.get(item.name);
      if (earlier)
        errors.push({
          path: item.path,
          message: `${describe(earlier)} already has the ${what} name "${item.name}"`,
        });
      else first.set(item.name, item.path);
    }
  };
  duplicates(
    parts.services.map((s, i) => ({ name: s.name, path: ['service', at('service', i), 'name'] })),
    'service',
  );
  duplicates(
    parts.checks.map((c) => ({ name: c.body.name, path: ['check', at('check', c.index), 'name'] })),
    'check',
  );
  duplicates(
    parts.hosts.map((h, i) => ({ name: h.name, path: ['host', at('host', i), 'name'] })),
    'host',
  );
  duplicates(
    parts.alerts.map((a) => ({ name: a.name, path: ['alert', at('alert', a.index), 'name'] })),
    'alert',
  );

  // Services: declared ones, then those only named by a check.
  const services = new Map<string, Path>();
  for (const [i, s] of parts.services.entries()) services.set(s.name, ['service', at('service', i), 'name']);
  for (const c of parts.checks) {
    if (!services.has(c.body.service))
      services.set(c.body.service, ['check', at('check', c.index), 'service']);
  }
  for (const c of parts.checks) {
    const service = services.get(c.body.name);
    if (!service) continue;
    const own = service[0] === 'check' && service[1] === at('check', c.index);
    errors.push({
      path: ['check', at('check', c.index), 'name'],
      message: own
        ? 'a check cannot have the name of its service; checks and services need different names'
        : `"${c.body.name}" is also a service (${describe(service)}); checks and services need different names`,
    });
  }

  // A ping_token and a ping_token_hash of the same token are the same URL.
  const tokens = new Map<string, number>();
  for (const c of parts.checks) {
    if (c.pingTokenHash === null) continue;
    const owner = tokens.get(c.pingTokenHash);
    if (owner === undefined) tokens.set(c.pingTokenHash, at('check', c.index));
    else
      errors.push({
        path: ['check', at('check', c.index), c.pingToken === null ? 'ping_token_hash' : 'ping_token'],
        message: `check[${owner}] has the same ping URL`,
      });
  }

  const sites = new Map<string, number>();
  parts.services.forEach((s, position) => {
    const i = at('service', position);
    s.sites.forEach((site, j) => {
      const owner = sites.get(site);
      if (owner !== undefined && owner !== i) {
        errors.push({
          path: ['service', i, 'sites', j],
          message: `site ${site} already belongs to service[${owner}]`,
        });
      } else sites.set(site, i);
    });
  });

  // A repository's deployments and pushes belong to one service. GitHub names ignore case.
  const repositories = new Map<string, number>();
  parts.services.forEach((s, position) => {
    if (s.repository === undefined) return;
    const i = at('service', position);
    const key = s.repository.toLowerCase();
    const owner = repositories.get(key);
    if (owner !== undefined) {
      errors.push({
        path: ['service', i, 'repository'],
        message: `repository ${s.repository} already belongs to service[${owner}]; a repository maps to one service`,
      });
    } else repositories.set(key, i);
  });

  // The outside world: a panel check with a file check's or file service's name.
  const fileNames = new Map<string, Path>(services);
  for (const c of parts.checks) fileNames.set(c.body.name, ['check', at('check', c.index), 'name']);
  for (const other of outside.checks) {
    const path = fileNames.get(other.name);
    if (!path) continue;
    errors.push({
      path,
      message: `collides with the panel check "${other.name}"; rename one of them (the whole file is rejected until then)`,
    });
  }
  const fileChecks = new Map(parts.checks.map((c) => [c.body.name, at('check', c.index)]));
  for (const service of outside.services ?? []) {
    const index = fileChecks.get(service.name);
    if (index === undefined) continue;
    errors.push({
      path: ['check', index, 'name'],
      message: `collides with the service "${service.name}", which has ${heldBy(service)}; rename the check (the whole file is rejected until then)`,
    });
  }
  // A check runs from a host mon knows, else it would wait for an agent that never connects.
  const hosts = new Set([
    ...parts.hosts.map((h) => h.name),
    ...parts.services.flatMap((s) => s.hosts),
    ...(outside.hosts ?? []),
  ]);
  for (const c of parts.checks) {
    const from = c.body.from ?? null;
    if (from === null || hosts.has(from)) continue;
    errors.push({
      path: ['check', at('check', c.index), 'from'],
      message: `no host named "${from}": add it with POST /api/v1/hosts, or name it in a [[host]] or a service's hosts`,
    });
  }
  // A panel check's host known only from the file (a service's hosts) must stay in it.
  for (const c of outside.checks) {
    const from = c.from ?? null;
    if (from === null || hosts.has(from)) continue;
    errors.push({
      path: [],
      message: `the panel check "${c.name}" runs from the host "${from}", which this file no longer names: keep it in a [[host]] or a service's hosts, add it with POST /api/v1/hosts, or change the check's from (the whole file is rejected until then)`,
    });
  }
  const panelChannels = new Set(outside.channels ?? []);
  for (const a of parts.alerts) {
    if (!panelChannels.has(a.name)) continue;
    errors.push({
      path: ['alert', at('alert', a.index), 'name'],
      message: `collides with the channel "${a.name}" made in the panel; rename one of them (the whole file is rejected until then)`,
    });
  }
  return errors;
}

function heldBy(service: PanelService): string {
  const held = [
    service.checks ? 'panel checks' : null,
    service.sites ? 'sites added through the API' : null,
    service.hosts ? 'hosts linked through the API' : null,
  ];
  return held.filter((h) => h !== null).join(' and ');
}

function describe(path: Path): string {
  return `${String(path[0])}[${String(path[1])}]`;
}

/** `depends_on` must name services of the file and must not loop. */
function dependencyErrors(
  services: Parts['services'],
  known: ReadonlySet<string>,
  at: (table: string, position: number) => number,
): PathError[] {
  const errors: PathError[] = [];
  services.forEach((s, position) => {
    const i = at('service', position);
    s.dependsOn.forEach((dep, j) => {
      if (dep === s.name)
        errors.push({ path: ['service', i, 'depends_on', j], message: 'a service cannot depend on itself' });
      else if (!known.has(dep)) {
        errors.push({
          path: ['service', i, 'depends_on', j],
          message: `unknown service "${dep}"; name a [[service]] or the service of a [[check]] in this file`,
        });
      }
    });
  });
  if (errors.length > 0) return errors;
  const edges = new Map<string, string[]>();
  for (const s of services) edges.set(s.name, [...(edges.get(s.name) ?? []), ...s.dependsOn]);
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]): string[] | null => {
    if (state.get(name) === 'done') return null;
    if (state.get(name) === 'visiting') return [...trail.slice(trail.indexOf(name)), name];
    state.set(name, 'visiting');
    for (const next of edges.get(name) ?? []) {
      const loop = visit(next, [...trail, name]);
      if (loop) return loop;
    }
    state.set(name, 'done');
    return null;
  };
  for (const s of services) {
    const loop = visit(s.name, []);
    if (loop) {
      const first = at(
        'service',
        services.findIndex((x) => x.name === loop[0]),
      );
      errors.push({
        path: ['service', first, 'depends_on'],
        message: `dependency loop: ${loop.join(' → ')}`,
      });
      break;
    }
  }
  return errors;
}
