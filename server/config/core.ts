import { isIP } from 'node:net';
import { z } from 'zod';
import { siteDomainSchema } from '../../protocol/analytics.ts';
import { nameSchema } from '../../protocol/check.ts';
import { DAY } from '../../protocol/durations.ts';
import { durationSchema, formatDuration } from './durations.ts';
import { httpUrl } from './fields.ts';
import { type Built, configSection, type TomlTable } from './section.ts';

/**
 * Sections of mon.toml that belong to no single feature: `[server]` with `trusted_proxies`,
 * `[retention]`, and `[[service]]`. Services are the vocabulary that checks, hosts, sites, incidents
 * and the status page share, so no feature folder owns them.
 */

export type ServerSettings = {
  /** Public URL from `[server] url` without a trailing slash, or null. */
  url: string | null;
  /** `trusted_proxies`: addresses and CIDR ranges. */
  trustedProxies: string[];
};

function ipOrCidr(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

export const serverSection = configSection({
  key: 'server',
  tables: {
    server: z
      .strictObject({
        url: httpUrl.transform((v) => v.replace(/\/+$/, '')).optional(),
      })
      .optional(),
    trusted_proxies: z
      .array(z.string().trim().refine(ipOrCidr, 'must be an IP address or a CIDR range such as 10.0.0.0/8'))
      .default([]),
  },
  build: (input): Built<ServerSettings> => ({
    value: { url: input.server?.url ?? null, trustedProxies: input.trusted_proxies },
    errors: [],
  }),
  empty: (): ServerSettings => ({ url: null, trustedProxies: [] }),
  toToml(value) {
    const out: TomlTable = {};
    if (value.trustedProxies.length > 0) out.trusted_proxies = [...value.trustedProxies];
    if (value.url !== null) out.server = { url: value.url };
    return out;
  },
});

export type Retention = { checkResultsMs: number };

export const defaultRetention: Retention = { checkResultsMs: 90 * DAY };

export const retentionSection = configSection({
  key: 'retention',
  tables: {
    retention: z
      .strictObject({
        check_results: durationSchema({ min: DAY, max: 3650 * DAY }).optional(),
      })
      .optional(),
  },
  build: (input): Built<Retention> => ({
    value: { checkResultsMs: input.retention?.check_results ?? defaultRetention.checkResultsMs },
    errors: [],
  }),
  empty: (): Retention => ({ ...defaultRetention }),
  toToml: (value): TomlTable =>
    value.checkResultsMs === defaultRetention.checkResultsMs
      ? {}
      : { retention: { check_results: formatDuration(value.checkResultsMs) } },
});

export const serviceTiers = ['critical', 'standard', 'low'] as const;
export type ServiceTier = (typeof serviceTiers)[number];

/** A `[[service]]` of the file. `tier` and `sites` formats are documented in docs/configuration.md. */
export type FileService = {
  name: string;
  hosts: string[];
  /** Host names of web sites (lowercase, like `example.com`). */
  sites: string[];
  dependsOn: string[];
  /** `critical`, `standard` or `low`; the file's default is `standard`. */
  tier: string | null;
  /**
   * The code-host repository (`owner/name`) whose deployments and pushes are this service's
   * (server/deploys/codehost.ts). Only set when the file names one.
   */
  repository?: string;
};

/** `owner/name` of a code-host repository, as GitHub spells them. */
const repositorySchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/, 'must be owner/name, such as acme/shop');

const fileServiceSchema = z.strictObject({
  name: nameSchema,
  hosts: z.array(nameSchema).default([]),
  sites: z.array(siteDomainSchema).default([]),
  depends_on: z.array(nameSchema).default([]),
  tier: z.enum(serviceTiers).default('standard'),
  repository: repositorySchema.optional(),
});

/** `[[service]]`. Whether `depends_on` names known services is a rule across sections (collisions.ts). */
export const serviceSection = configSection({
  key: 'services',
  tables: { service: z.array(fileServiceSchema).default([]) },
  build: (input): Built<FileService[]> => ({
    value: input.service.map((s) => ({
      name: s.name,
      hosts: s.hosts,
      sites: s.sites,
      dependsOn: s.depends_on,
      tier: s.tier,
      ...(s.repository === undefined ? {} : { repository: s.repository }),
    })),
    errors: [],
  }),
  empty: (): FileService[] => [],
  toToml(value) {
    if (value.length === 0) return {};
    const service = value.map((s) => {
      const out: TomlTable = { name: s.name };
      if (s.hosts.length > 0) out.hosts = [...s.hosts];
      if (s.sites.length > 0) out.sites = [...s.sites];
      if (s.dependsOn.length > 0) out.depends_on = [...s.dependsOn];
      if (s.tier !== null && s.tier !== 'standard') out.tier = s.tier;
      if (s.repository !== undefined) out.repository = s.repository;
      return out;
    });
    return { service };
  },
  names: (value) => ({ services: value.map((s) => s.name) }),
});
