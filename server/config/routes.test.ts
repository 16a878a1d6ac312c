import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ConfigExport, ConfigStatus } from '../../protocol/config.ts';
import type { Principal } from '../auth/access.ts';
import { createTestServer, tempDir } from '../testing.ts';

const admin: Principal = {
  kind: 'user',
  via: 'session',
  user: { id: 'u1', email: 'admin@example.com', role: 'admin' },
  sessionId: 's1',
};

test('config status and export routes read the mon.toml service', async (t) => {
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  writeFileSync(
    configPath,
    '[[alert]]\ntype = "telegram"\nbot_token = "123:secret-bot-token"\nchat_id = 7\n[[check]]\nname = "pg"\nservice = "db"\ntcp = "db:5432"\nevery = 30\n',
  );
  let caller: Principal | null = null;
  const server = await createTestServer({ configPath, authenticate: async () => caller });
  t.after(async () => {
    await server.dispose();
    remove();
  });

  // Access is enforced: without credentials, 401.
  assert.equal((await server.app.inject({ url: '/api/v1/config/status' })).statusCode, 401);
  caller = admin;

  const status = await server.app.inject({ url: '/api/v1/config/status' });
  assert.equal(status.statusCode, 200);
  assert.deepEqual(status.json(), {
    error: 'check[0].every: use a duration such as 30s, 5m or 1h30m',
    inForce: 'empty',
  });

  writeFileSync(
    configPath,
    '[[alert]]\ntype = "telegram"\nbot_token = "123:secret-bot-token"\nchat_id = 7\n[[check]]\nname = "pg"\nservice = "db"\ntcp = "db:5432"\nevery = "30s"\n',
  );
  server.deps.config.reload();
  assert.deepEqual((await server.app.inject({ url: '/api/v1/config/status' })).json(), {
    error: null,
    inForce: 'file',
  } satisfies ConfigStatus);

  const exported = await server.app.inject({ url: '/api/v1/config/export' });
  assert.equal(exported.statusCode, 200);
  const body = exported.json<ConfigExport>();
  assert.ok(!exported.body.includes('secret-bot-token'));
  assert.match(body.toml, /bot_token = "\$\{MON_ALERT_TELEGRAM_BOT_TOKEN\}"/);
  assert.match(body.toml, /every = "30s"/);
  assert.deepEqual(body.secrets, [
    {
      name: 'MON_ALERT_TELEGRAM_BOT_TOKEN',
      key: 'alert[0].bot_token',
      about: 'Bot token of Telegram alert telegram',
    },
  ]);
});
