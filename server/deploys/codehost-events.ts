import { z } from 'zod';
import type { FileService } from '../config/core.ts';
import { formatPath } from '../config/paths.ts';
import { badRequest } from '../problem.ts';
import { isHttpUrl, MAX_FIELD_LENGTH } from './fields.ts';
import type { ChangeReport, DeployReport } from './store.ts';

/**
 * What a code-host delivery means for mon, decided from its event type and payload alone (GitHub's
 * webhook format): a finished production deployment is a deploy, a push to the default branch is a
 * `push` change, a ping is answered, and everything else is acknowledged and ignored with a reason.
 */
export type Delivery =
  | { type: 'deploy'; report: DeployReport }
  | { type: 'change'; report: ChangeReport }
  | { type: 'ping' }
  | { type: 'ignored'; reason: string };

const account = z.looseObject({ login: z.string() }).nullish();
const repository = z.looseObject({ full_name: z.string(), default_branch: z.string().nullish() });

const deploymentStatusPayload = z.looseObject({
  deployment_status: z.looseObject({
    state: z.string(),
    environment: z.string().nullish(),
    log_url: z.string().nullish(),
    target_url: z.string().nullish(),
    environment_url: z.string().nullish(),
    description: z.string().nullish(),
    creator: account,
  }),
  deployment: z.looseObject({
    sha: z.string().nullish(),
    ref: z.string().nullish(),
    environment: z.string().nullish(),
    description: z.string().nullish(),
    transient_environment: z.boolean().nullish(),
    production_environment: z.boolean().nullish(),
    creator: account,
  }),
  repository,
});

const pushPayload = z.looseObject({
  ref: z.string(),
  compare: z.string().nullish(),
  deleted: z.boolean().nullish(),
  head_commit: z.looseObject({ message: z.string() }).nullish(),
  pusher: z.looseObject({ name: z.string().nullish() }).nullish(),
  repository,
});

/** Reads one delivery; `ts` is when it arrived. A payload without what its event needs is a 400. */
export function readDelivery(
  event: string,
  payload: unknown,
  services: readonly FileService[],
  ts: number,
): Delivery {
  switch (event) {
    case 'ping':
      return { type: 'ping' };
    case 'deployment_status':
      return deploymentStatus(parse(deploymentStatusPayload, payload), services, ts);
    case 'push':
      return push(parse(pushPayload, payload), services, ts);
    default:
      return { type: 'ignored', reason: `mon does not use ${event} events` };
  }
}

function deploymentStatus(
  payload: z.output<typeof deploymentStatusPayload>,
  services: readonly FileService[],
  ts: number,
): Delivery {
  const { deployment_status: status, deployment } = payload;
  const environment = status.environment ?? deployment.environment ?? '';
  if (status.state !== 'success') {
    return { type: 'ignored', reason: `deployment status ${status.state}: only success is a deploy` };
  }
  const preview = previewReason(environment, deployment);
  if (preview) return { type: 'ignored', reason: preview };
  const service = serviceOf(services, payload.repository.full_name);
  if (service === null) return unmapped(payload.repository.full_name);
  const version = deployment.sha || deployment.ref;
  if (!version) throw badRequest('deployment.sha: required');
  const url = [status.log_url, status.target_url, status.environment_url].map(link).find((u) => u !== null);
  return {
    type: 'deploy',
    report: {
      service,
      version: clip(oneLine(version)),
      ts,
      by: orNull(status.creator?.login ?? deployment.creator?.login),
      url: url ?? null,
      description: orNull(deployment.description ?? status.description),
      source: 'codehost',
      host: null,
    },
  };
}

/** Why a deployment is not to production, or null when it is. */
function previewReason(
  environment: string,
  deployment: { transient_environment?: boolean | null; production_environment?: boolean | null },
): string | null {
  const named = environment === '' ? 'without a name' : `"${environment}"`;
  if (deployment.transient_environment === true) return `environment ${named} is a preview (transient)`;
  if (deployment.production_environment === true) return null;
  if (deployment.production_environment === false || environment.toLowerCase() !== 'production') {
    return `environment ${named} is not production`;
  }
  return null;
}

function push(payload: z.output<typeof pushPayload>, services: readonly FileService[], ts: number): Delivery {
  const branch = /^refs\/heads\/(.+)$/.exec(payload.ref)?.[1];
  if (!branch) return { type: 'ignored', reason: `${payload.ref} is not a branch` };
  const main = payload.repository.default_branch;
  if (main && branch !== main) {
    return {
      type: 'ignored',
      reason: `push to ${branch}: only pushes to the default branch ${main} are marked`,
    };
  }
  if (payload.deleted === true || !payload.head_commit) {
    return { type: 'ignored', reason: `push to ${branch} deleted the branch` };
  }
  const service = serviceOf(services, payload.repository.full_name);
  if (service === null) return unmapped(payload.repository.full_name);
  const subject = oneLine(payload.head_commit.message.split(/\r?\n/)[0]!);
  return {
    type: 'change',
    report: {
      ts,
      kind: 'push',
      what: clip(subject === '' ? `push to ${branch}` : `push to ${branch}: ${subject}`),
      service,
      host: null,
      by: orNull(payload.pusher?.name),
      url: link(payload.compare),
      description: null,
      source: 'codehost',
    },
  };
}

/** The service whose `repository` is `fullName` (GitHub names ignore case), or null. */
function serviceOf(services: readonly FileService[], fullName: string): string | null {
  const wanted = fullName.toLowerCase();
  return services.find((s) => s.repository?.toLowerCase() === wanted)?.name ?? null;
}

/** A repository no service claims: acknowledged, and never a new service. */
function unmapped(fullName: string): Delivery {
  return {
    type: 'ignored',
    reason: `repository ${fullName} belongs to no service: add repository = "${fullName}" to its [[service]] in mon.toml`,
  };
}

function parse<T extends z.ZodType>(schema: T, payload: unknown): z.output<T> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw badRequest(issue.path.length > 0 ? `${formatPath(issue.path)}: ${issue.message}` : issue.message);
}

/** Text from the code host, cut to the length of a deploy field. */
function clip(text: string): string {
  const chars = [...text.trim()];
  return chars.length <= MAX_FIELD_LENGTH
    ? chars.join('')
    : `${chars.slice(0, MAX_FIELD_LENGTH - 1).join('')}…`;
}

/** Control characters and line separators become spaces: names and subjects show on one line. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

/** An optional field: one line cut to size, or null when there is nothing. */
function orNull(text: string | null | undefined): string | null {
  const line = oneLine(text ?? '');
  return line === '' ? null : clip(line);
}

/** A link shown with the deploy or change: an http(s) URL that fits a field whole, or null. */
function link(url: string | null | undefined): string | null {
  return url && [...url].length <= MAX_FIELD_LENGTH && isHttpUrl(url) ? url : null;
}
