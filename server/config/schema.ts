import { isIP } from 'node:net';
import { z } from 'zod';
import { isHostname, MIN_EVERY_MS, nameSchema } from '../../protocol/check.ts';
import { authConfigSchema } from '../auth/config.ts';
import { durationSchema } from './durations.ts';
import { channelKinds, serviceTiers } from './kinds.ts';

/**
 * The shape of mon.toml (snake_case keys, as written). This schema checks types and formats; the
 * rules between keys (one target key, per-type alert keys, dependencies, names) are in load.ts.
 * docs/configuration.md lists every key.
 */

const DAY = 86_400_000;
const text = (max = 2048) => z.string().trim().min(1, 'must not be empty').max(max);

function ipOrCidr(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

const httpUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');

const serverSchema = z.strictObject({
  url: httpUrl.transform((v) => v.replace(/\/+$/, '')).optional(),
});

const retentionSchema = z.strictObject({
  check_results: durationSchema({ min: DAY, max: 3650 * DAY }).optional(),
});

const siteSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (v) => isHostname(v) && !v.endsWith('.'),
    'must be a host name such as example.com (no scheme, port or path)',
  );

export const fileServiceSchema = z.strictObject({
  name: nameSchema,
  hosts: z.array(nameSchema).default([]),
  sites: z.array(siteSchema).default([]),
  depends_on: z.array(nameSchema).default([]),
  tier: z.enum(serviceTiers).default('standard'),
});

/** A threshold: a number in range, `false` to turn the alert off, or `true` for the default. */
const threshold = (max: number) => {
  const message = `must be a number from 1 to ${max}, or false`;
  return z.union([z.boolean(), z.number().min(1, message).max(max, message)], { error: message }).optional();
};

export const fileHostSchema = z.strictObject({
  name: nameSchema,
  cpu: threshold(100),
  memory: threshold(100),
  swap: threshold(100),
  disk: threshold(100),
  temperature: threshold(150),
  ignore_mounts: z
    .array(z.string().regex(/^\/\S*$/, 'must be an absolute mount path such as /boot'))
    .default([]),
});

const fileAssertionSchema = z.strictObject({
  status: z
    .union([z.number().int(), z.string()], { error: 'must be a status code or a pattern such as 2xx' })
    .optional(),
  json: z.string().optional(),
  equals: z
    .union([z.string(), z.number(), z.boolean()], { error: 'must be a string, number or boolean' })
    .optional(),
  body_contains: z.string().optional(),
  body_not_contains: z.string().optional(),
  response_time_below: durationSchema({ min: 1 }).optional(),
  else: z.enum(['down', 'degraded']).optional(),
});
export type FileAssertion = z.infer<typeof fileAssertionSchema>;

export const targetKeys = ['url', 'tcp', 'dns', 'ping', 'domain'] as const;
export type TargetKey = (typeof targetKeys)[number];

export const fileCheckSchema = z.strictObject({
  name: nameSchema,
  service: nameSchema,
  url: text().optional(),
  tcp: text().optional(),
  dns: text().optional(),
  ping: text().optional(),
  domain: text().optional(),
  from: nameSchema.optional(),
  every: durationSchema({ min: MIN_EVERY_MS, max: 7 * DAY }).optional(),
  timeout: durationSchema({ min: 100, max: 120_000 }).optional(),
  method: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  expect: z.array(fileAssertionSchema).optional(),
  ping_token: z
    .string()
    .regex(/^btp_[A-Za-z0-9_-]{20,200}$/, 'must be btp_ followed by at least 20 letters, digits, _ or -')
    .optional(),
  cron: z.string().optional(),
  timezone: z.string().optional(),
  grace: durationSchema({ min: 0, max: 7 * DAY }).optional(),
  // Accepted here only so that its refusal can say where command checks belong.
  command: z.unknown().optional(),
});
export type FileCheckInput = z.infer<typeof fileCheckSchema>;

export const alertNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,59}$/, 'must be lowercase letters, digits and hyphens');

const email = z.string().trim().email('must be an email address');

export const fileAlertSchema = z.strictObject({
  name: alertNameSchema.optional(),
  type: z.enum(channelKinds),
  url: httpUrl.optional(),
  token: text(4096).optional(),
  secret: text(4096).optional(),
  bot_token: text(4096).optional(),
  chat_id: z.union([text(100), z.number().int()], { error: 'must be a chat id' }).optional(),
  smtp: z
    .string()
    .trim()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port')
    .refine((v) => {
      const port = Number(v.slice(v.lastIndexOf(':') + 1));
      return port >= 1 && port <= 65535;
    }, 'port must be 1 to 65535')
    .optional(),
  tls: z.boolean().optional(),
  username: text(320).optional(),
  password: text(4096).optional(),
  from: email.optional(),
  to: z.array(email).min(1, 'must list at least one address').optional(),
  allow_private: z.boolean().optional(),
});
export type FileAlertInput = z.infer<typeof fileAlertSchema>;

export const fileSchema = z.strictObject({
  server: serverSchema.optional(),
  trusted_proxies: z
    .array(z.string().trim().refine(ipOrCidr, 'must be an IP address or a CIDR range such as 10.0.0.0/8'))
    .default([]),
  retention: retentionSchema.optional(),
  auth: authConfigSchema.optional(),
  service: z.array(fileServiceSchema).default([]),
  host: z.array(fileHostSchema).default([]),
  check: z.array(fileCheckSchema).default([]),
  alert: z.array(fileAlertSchema).default([]),
});
export type FileInput = z.infer<typeof fileSchema>;
