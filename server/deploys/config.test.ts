import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportConfig } from '../config/export.ts';
import { loadConfigText } from '../config/load.ts';
import { codehostSecret } from './config.ts';

/** `[codehost] secret` and `[[service]] repository` in mon.toml. */

const env = { HOOK_SECRET: 'the hook secret value' };

function errorOf(text: string, environment: Record<string, string> = env): string {
  const loaded = loadConfigText(text, { env: environment });
  assert.equal(loaded.ok, false, 'the file is refused');
  return loaded.ok ? '' : loaded.error;
}

test('the webhook secret comes from the environment only and never leaves as a value', () => {
  assert.match(
    errorOf('[codehost]\nsecret = "hunter2"\n'),
    /^codehost\.secret: must be a reference to an environment variable such as "\$\{WEBHOOK_SECRET\}"/,
  );
  assert.equal(
    errorOf(`[codehost]\nsecret = "\${NOT_SET}"\n`),
    'codehost.secret: environment variable NOT_SET is not set',
  );
  assert.match(errorOf(`[codehost]\nsecret = "\${HOOK_SECRET}"\ntoken = "x"\n`), /^codehost\.token: unknown/);

  const loaded = loadConfigText(`[codehost]\nsecret = "\${HOOK_SECRET}"\n`, { env });
  if (!loaded.ok) assert.fail(loaded.error);
  assert.deepEqual(
    loaded.config.codehost,
    { secret: `\${HOOK_SECRET}` },
    'the configuration holds the reference',
  );
  assert.equal(codehostSecret(loaded.config.codehost, env), env.HOOK_SECRET);
  assert.equal(codehostSecret(loaded.config.codehost, { HOOK_SECRET: '' }), null, 'an empty secret is none');
  assert.equal(codehostSecret({ secret: null }, env), null);

  const exported = exportConfig(loaded.config, loaded.references, []);
  assert.ok(exported.toml.includes(`secret = "\${HOOK_SECRET}"`));
  assert.ok(!exported.toml.includes(env.HOOK_SECRET));
  assert.deepEqual(exported.secrets, [
    { name: 'HOOK_SECRET', key: 'codehost.secret', about: 'Secret of the code-host webhook' },
  ]);
});

test('a repository is owner/name and belongs to one service', () => {
  const loaded = loadConfigText('[[service]]\nname = "shop"\nrepository = " acme/shop.web "\n', { env });
  if (!loaded.ok) assert.fail(loaded.error);
  assert.equal(loaded.config.services[0]?.repository, 'acme/shop.web');
  assert.ok(exportConfig(loaded.config, loaded.references, []).toml.includes('repository = "acme/shop.web"'));

  for (const wrong of ['shop', 'acme/shop/web', 'https://github.com/acme/shop', '-acme/shop']) {
    assert.equal(
      errorOf(`[[service]]\nname = "shop"\nrepository = "${wrong}"\n`),
      'service[0].repository: must be owner/name, such as acme/shop',
      wrong,
    );
  }
  assert.equal(
    errorOf(
      '[[service]]\nname = "shop"\nrepository = "acme/shop"\n[[service]]\nname = "api"\nrepository = "Acme/Shop"\n',
    ),
    'service[1].repository: repository Acme/Shop already belongs to service[0]; a repository maps to one service',
  );
});
