import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { ZodError } from 'zod';
import { fieldIssue } from '../protocol/messages.ts';
import { type Access, type Authenticator, accessOf, ownAuthentication, refusal } from './auth/access.ts';
import { formatPath } from './config/paths.ts';
import type { Deps } from './deps.ts';
import type { Feature } from './feature.ts';
import { addSecurityHeaders, type RouteHeaders, setSecurityHeaders } from './http/headers.ts';
import { registerHealth } from './http/health.ts';
import { refuseDeepJson } from './http/json-depth.ts';
import { loadPanelIndex, panelDist } from './http/panel.ts';
import { logSecurity, routeOf } from './http/security-log.ts';
import { Problem } from './problem.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** The route's own security headers (http/headers.ts), e.g. a page with a policy of its own. */
    headers?: RouteHeaders;
  }
  interface FastifyRequest {
    principal: import('./auth/access.ts').Principal | null;
  }
}

/** Path prefixes that never fall back to the panel: unknown paths below them answer 404. */
const reservedPrefixes = ['/api', '/agent', '/auth', '/e', '/ping', '/hooks', '/mcp'];

/** Body limits of SPEC.md's Limits table; every other route takes up to 1 MiB. Over the limit: 413. */
export const bodyLimits: Record<string, number> = {
  'POST /e': 8 * 1024,
  'POST /api/deploys': 64 * 1024,
  'POST /api/changes': 64 * 1024,
  'POST /mcp': 64 * 1024,
  'POST /hooks/codehost': 5 * 1024 * 1024,
  'POST /agent/v1/frames': 4 * 1024 * 1024,
};

export type AppOptions = {
  /** Who a request comes from (the accounts feature). */
  authenticate: Authenticator;
  /** The features whose routes and health the app serves, in order. */
  features: readonly Feature[];
  panelDir?: string;
};

/** Builds the HTTP app without listening; tests call `app.inject()`. */
export function buildApp(deps: Deps, options: AppOptions): FastifyInstance {
  const { authenticate, features } = options;
  const panelDir = options.panelDir ?? panelDist;
  const panel = loadPanelIndex(panelDir);
  const app = Fastify({
    logger: false,
    bodyLimit: 1024 * 1024,
    // Closing the server ends idle keep-alive connections at once; the stream closes its own.
    forceCloseConnections: 'idle',
    // A container or unit name may be 256 characters (protocol/agent.ts): up to 9 bytes each once
    // percent-encoded, past the router's default of 100.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 * 9 },
    // Malformed URLs and the like still answer problem+json.
    frameworkErrors: (error, request, reply) => {
      const problem = toProblem(error);
      // These answers skip the onSend hooks.
      (reply as FastifyReply).type('application/problem+json');
      setSecurityHeaders(request, reply as FastifyReply, panel.policy);
      (reply as FastifyReply).code(problem.status).send(problem.body());
    },
  });
  // JSON routes read JSON only: a text/plain body answers 415 instead of reaching a schema as a string.
  app.removeContentTypeParser('text/plain');
  // Fastify's own parser, after a look at how deep the body nests (http/json-depth.ts).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    try {
      refuseDeepJson(text);
    } catch (error) {
      done(error as Problem, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  app.decorateRequest('principal', null);

  // Every route must be in the access table: a route without an access term does not register.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const access =
        accessOf(method, route.url) ?? (method === 'HEAD' ? accessOf('GET', route.url) : undefined);
      if (!access) throw new Error(`route ${method} ${route.url} is missing from the access table`);
      route.config = { ...(route.config as object), access };
      const limit = bodyLimits[`${method} ${route.url}`];
      if (limit !== undefined) route.bodyLimit = limit;
    }
  });

  // A callback hook, not an async one: routes that authenticate by their own means (the tracker's
  // POST /e among them) pass without a promise, which counts at thousands of requests a second.
  app.addHook('onRequest', (request, _reply, done) => {
    const access = request.routeOptions.config.access;
    // The not-found handler has no access term.
    if (!access || ownAuthentication.has(access)) return done();
    authenticate(request).then((principal) => {
      request.principal = principal;
      done(refusal(access, principal) ?? undefined);
    }, done);
  });

  addSecurityHeaders(app, panel.policy);

  app.setErrorHandler((error: FastifyError | Problem | ZodError, request, reply) => {
    const problem = toProblem(error);
    const route = routeOf(request);
    if (problem.status >= 500 && !(error instanceof Problem)) {
      deps.log.error('request failed', { method: request.method, route, error: String(error) });
    }
    const fields = { method: request.method, route, detail: problem.detail ?? problem.title };
    const access = request.routeOptions.config.access;
    // The agent routes log their 429s themselves, a line a minute per address (hosts/agent-auth.ts).
    if (problem.status === 429 && access !== 'host') logSecurity(deps, request, 'rate.limited', fields);
    // On routes anyone may call, a 403 is a failed sign-in, which the route logs as such.
    if (problem.status === 403 && access !== 'none' && access !== 'setup') {
      logSecurity(deps, request, 'access.refused', fields);
    }
    if (problem.retryAfter !== undefined) reply.header('Retry-After', String(problem.retryAfter));
    return reply.code(problem.status).type('application/problem+json').send(problem.body());
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const reserved = reservedPrefixes.some((p) => path === p || path.startsWith(`${p}/`));
    if (reserved || path.startsWith('/assets/') || (request.method !== 'GET' && request.method !== 'HEAD')) {
      const problem = new Problem(404, 'not found', `no route ${request.method} ${path}`);
      return reply.code(404).type('application/problem+json').send(problem.body());
    }
    return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(panel.html);
  });

  app.register(fastifyCookie);
  app.register(fastifyStatic, {
    root: join(panelDir, 'assets'),
    prefix: '/assets/',
    index: false,
    immutable: true,
    maxAge: '365d',
    wildcard: true,
    decorateReply: false,
  });

  registerHealth(app, deps, features);
  for (const feature of features) feature.routes?.(app);
  return app;
}

function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    if (issue && issue.path.length === 0 && issue.code === 'invalid_type') {
      return new Problem(400, 'bad request', 'the body must be a JSON object');
    }
    if (!issue) return new Problem(422, 'invalid value');
    const { path, message } = fieldIssue(issue);
    return new Problem(422, 'invalid value', path.length > 0 ? `${formatPath(path)}: ${message}` : message);
  }
  const e = error as FastifyError;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new Problem(413, 'body too large', e.message);
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new Problem(415, 'unsupported media type', e.message);
  if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new Problem(400, 'bad request', 'the body is empty');
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError) {
    return new Problem(400, 'bad request', 'the body is not valid JSON');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new Problem(e.statusCode, 'bad request', e.message);
  }
  return new Problem(500, 'internal error');
}
