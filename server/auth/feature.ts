import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import type { Principal } from './access.ts';
import { createAuthenticator, stillValid } from './authenticate.ts';
import { registerAuth } from './routes.ts';
import { createAuthState } from './service.ts';
import { prepareSetupToken } from './setup-token.ts';
import { registerTokens } from './tokens-routes.ts';
import { registerUsers } from './users-routes.ts';

/** Accounts and access: sign-in, sessions, users, tokens, OpenID Connect, forward auth. */
export function createAccounts(deps: Deps) {
  const state = createAuthState(deps.clock);
  state.setupToken = prepareSetupToken(deps);
  const feature: Feature = {
    name: 'accounts',
    routes(app) {
      registerAuth(app, deps, state);
      registerUsers(app, deps, state);
      registerTokens(app, deps);
    },
  };
  return {
    feature,
    state,
    /** Who a request comes from: token, session cookie or forward-auth proxy. */
    authenticate: createAuthenticator(deps),
    /** Whether a principal's session or token is still good (live streams end when it is not). */
    stillValid: (principal: Principal | null) => stillValid(deps, principal),
  };
}
