import type { Clock } from '../clock.ts';
import type { ConfigService } from '../config/service.ts';
import type { Log } from '../log.ts';
import type { NotifyOptions } from '../notify/options.ts';
import { createTestServer, type TestServer } from '../testing.ts';
import type { Role, TokenScope } from './access.ts';
import { PasswordHasher } from './passwords.ts';
import { createSession } from './sessions.ts';
import { createToken } from './tokens.ts';
import { insertUser } from './users.ts';

/** Cheap argon2id parameters for tests; one test checks the real ones. */
export const fastArgon2 = { memory: 64, passes: 1, parallelism: 1 };

export type AuthTestServer = TestServer & {
  /** Adds an account straight into the store. */
  addUser(email: string, role: Role, password?: string | null): Promise<string>;
  /** A `Cookie` header value of a new session of the account. */
  cookieOf(userId: string): Promise<string>;
  /** A new API token's text. */
  tokenOf(scope: TokenScope): Promise<string>;
};

/** A whole server with fast password hashing and helpers to make accounts, sessions and tokens. */
export async function authTestServer(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    config?: ConfigService;
    configPath?: string;
    log?: Log;
    notify?: NotifyOptions;
  } = {},
): Promise<AuthTestServer> {
  const server = await createTestServer(options);
  server.accounts.state.hasher = new PasswordHasher({ params: fastArgon2 });
  const { deps } = server;
  return {
    ...server,
    async addUser(email, role, password = null) {
      const hash = password ? await server.accounts.state.hasher.hash(password) : null;
      const now = deps.clock.now();
      const user = await deps.store.writer.run((db) =>
        insertUser(db, { email, role, password: hash, source: 'admin', now }),
      );
      return user!.id;
    },
    async cookieOf(userId) {
      const session = await createSession(deps, userId, 'password');
      return `mon_session=${session.id}`;
    },
    async tokenOf(scope) {
      return (await createToken(deps, { scope, label: `${scope} token`, createdBy: 'test' })).token;
    },
  };
}

/** Headers a browser sends with a signed-in write from the panel (inject's Host is localhost:80). */
export function browser(cookie: string): Record<string, string> {
  return { cookie, origin: 'http://localhost' };
}
