/**
 * Read shapes of the JSON API's accounts: sign-in state, people and API tokens (SPEC "JSON API under
 * /api/v1", "Token, user, watchdog"), shared by the server, the panel and the tests.
 */

export type Role = 'admin' | 'viewer';

export const tokenScopes = ['read', 'write', 'deploy', 'mcp', 'ping', 'agent'] as const;
export type TokenScope = (typeof tokenScopes)[number];

/** A signed-in person: the answer of `POST /auth/login` and `POST /auth/setup` (201). */
export type AuthUser = { id: string; email: string; role: Role };

/** An OpenID Connect provider to sign in with: `url` starts its flow. */
export type SignInProvider = { name: string; label: string; url: string };

/** `GET /api/v1/auth`: what the sign-in page needs, and who is signed in (null when nobody). */
export type AuthState = {
  needsSetup: boolean;
  user: AuthUser | null;
  /** Password sign-in is on. */
  password: boolean;
  providers: SignInProvider[];
  /** A forward-auth proxy is configured. */
  proxy: boolean;
};

/** `GET /api/v1/auth/me`: the signed-in person and how they came in. */
export type Me = AuthUser & { via: 'session' | 'proxy' };

/** An account as admins see it: never the password hash. */
export type UserView = {
  id: string;
  email: string;
  role: Role;
  /** How the account came to be: `setup`, `admin`, `oidc:<provider>` or `proxy`. */
  source: string;
  hasPassword: boolean;
  createdAt: number;
  lastSignInAt: number | null;
};

/** `GET /api/v1/users`. */
export type UsersList = { users: UserView[] };

/** An API token as listed: never its secret. */
export type TokenView = {
  id: string;
  scope: TokenScope;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
};

/** `GET /api/v1/tokens`. */
export type TokensList = { tokens: TokenView[] };

/** `POST /api/v1/tokens` (201): the token's text, shown this once. */
export type CreatedToken = TokenView & { token: string };
