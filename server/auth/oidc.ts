import type { FastifyReply, FastifyRequest } from 'fastify';
import * as client from 'openid-client';
import type { Deps } from '../deps.ts';
import { publicBase } from '../http/public-base.ts';
import { logSecurity } from '../http/security-log.ts';
import { badRequest, forbidden, notFound, Problem } from '../problem.ts';
import type { Role } from './access.ts';
import type { OidcProviderConfig } from './config.ts';
import type { AuthState } from './service.ts';
import { createSession, isHttps, setSessionCookie } from './sessions.ts';
import { emailSchema, insertUser, listedIn, madeInMon, type UserRow, userByEmail } from './users.ts';

/** Cookie naming the sign-in flow in progress; the flow itself stays on the server. */
export const flowCookie = 'mon_oidc';
const flowPath = '/api/v1/auth/oidc/';
const flowLifetimeMs = 10 * 60_000;

function providerOf(deps: Deps, name: string): OidcProviderConfig {
  const provider = deps.config.current().auth.oidc.find((p) => p.name === name);
  if (!provider) throw notFound(`no sign-in provider named ${name}`);
  return provider;
}

async function providerConfig(
  deps: Deps,
  oidc: AuthState['oidc'],
  provider: OidcProviderConfig,
): Promise<client.Configuration> {
  try {
    return await oidc.configuration(provider);
  } catch (error) {
    deps.log.warn('OpenID Connect discovery failed', { provider: provider.name, error: String(error) });
    throw new Problem(502, 'bad gateway', `the sign-in provider ${provider.name} cannot be reached`);
  }
}

/** `GET /api/v1/auth/oidc/:provider`: starts authorization code + PKCE and redirects to the provider. */
export async function beginSignIn(
  deps: Deps,
  { oidc }: AuthState,
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
) {
  const provider = providerOf(deps, name);
  const config = await providerConfig(deps, oidc, provider);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const redirectUri = `${publicBase(deps, request)}/api/v1/auth/oidc/${provider.name}/callback`;
  const id = oidc.add({ provider: provider.name, verifier, state, nonce, redirectUri });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: provider.scopes.join(' '),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  reply.setCookie(flowCookie, id, {
    path: flowPath,
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(deps.config.current().server.url),
    maxAge: flowLifetimeMs / 1000,
  });
  return reply.header('Cache-Control', 'no-store').redirect(url.href, 302);
}

/** May this address enter through this provider? Listed people and domains, listed admins, or accounts made in mon. */
export function oidcAdmits(provider: OidcProviderConfig, email: string, account: UserRow | null): boolean {
  return listedIn(provider, email) || madeInMon(account);
}

/** Admin when the account's stored role is admin or the provider lists the address among its admins. */
export function oidcRole(provider: OidcProviderConfig, account: UserRow): Role {
  return account.role === 'admin' || provider.admins.includes(account.email) ? 'admin' : 'viewer';
}

/** `GET /api/v1/auth/oidc/:provider/callback`: checks state, nonce and PKCE, then starts a session. */
export async function finishSignIn(
  deps: Deps,
  { oidc }: AuthState,
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
) {
  const provider = providerOf(deps, name);
  const method = `oidc:${provider.name}`;
  const flowId = request.cookies[flowCookie];
  const flow = flowId ? oidc.take(flowId) : null;
  reply.clearCookie(flowCookie, { path: flowPath });
  if (!flow || flow.provider !== provider.name) {
    throw badRequest('this sign-in expired or was started in another browser; start again');
  }
  const config = await providerConfig(deps, oidc, provider);
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  let email: string;
  let verified: unknown;
  try {
    const tokens = await client.authorizationCodeGrant(config, new URL(flow.redirectUri + query), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    let raw = claims.email;
    verified = claims.email_verified;
    if (typeof raw !== 'string') {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      raw = info.email;
      verified = info.email_verified;
    }
    email = emailSchema.parse(raw);
  } catch (error) {
    logSecurity(deps, request, 'signin.failed', { email: null, method, reason: errorText(error) });
    throw forbidden(`sign-in with ${provider.name} failed`);
  }
  // Unless the provider is set to vouch for addresses it does not mark, the claim must say verified:
  // an unmarked address could be anyone's, an admin's included.
  if (verified !== true && (verified === false || provider.require_verified_email)) {
    logSecurity(deps, request, 'signin.failed', { email, method, reason: 'email address not verified' });
    throw forbidden('the provider has not verified this email address');
  }
  let account = userByEmail(deps.store.read, email);
  if (!oidcAdmits(provider, email, account)) {
    logSecurity(deps, request, 'signin.failed', { email, method, reason: 'not admitted' });
    throw forbidden('this account may not sign in');
  }
  if (!account) {
    const now = deps.clock.now();
    const made = await deps.store.writer.run((db) =>
      insertUser(db, { email, role: 'viewer', password: null, source: method, now }),
    );
    if (made) {
      const { id, role, source } = made;
      logSecurity(deps, request, 'user.created', { userId: id, email, role, source });
    }
    // Made by a sign-in of the same person running alongside: theirs is the account.
    account = made ?? userByEmail(deps.store.read, email);
  }
  const session = await createSession(deps, account!.id, method);
  setSessionCookie(reply, session.id, deps.config.current().server.url);
  return reply.header('Cache-Control', 'no-store').redirect('/', 302);
}

/** Error names and codes only: provider messages may echo request values. */
function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const oauthError = (error as { error?: unknown }).error;
    return [error.name, code, oauthError].filter((x) => typeof x === 'string').join(' ');
  }
  return 'unknown';
}
