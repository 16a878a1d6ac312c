import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { hashToken } from '../checks/ping-tokens.ts';
import { exportConfig } from './export.ts';
import { loadConfigText } from './load.ts';
import { type LiveConfig, staticConfig } from './service.ts';

const file = `
trusted_proxies = ["10.0.0.0/8", "::1"]
[server]
url = "\${PUBLIC_URL}"
[retention]
check_results = "36h"
[auth]
password = false
[[auth.oidc]]
name = "company"
issuer = "https://id.example.com"
client_id = "mon"
client_secret = "oidc-secret"
admins = ["ann@example.com"]
[[service]]
name = "shop"
hosts = ["web-1"]
sites = ["shop.example.com"]
depends_on = ["db"]
tier = "critical"
[[host]]
name = "web-1"
cpu = 95.5
swap = false
ignore_mounts = ["/boot"]
[[check]]
name = "shop home"
service = "shop"
url = "https://shop.example.com/health"
every = "90s"
timeout = "1500ms"
headers = { Authorization = "Bearer \${API_TOKEN}", X-Api-Key = "key-123", Accept = "text/html" }
expect = [{ status = 200 }, { json = "$.ok", equals = true }, { response_time_below = "2s", else = "degraded" }]
[[check]]
name = "backup"
service = "db"
every = "1d"
grace = "2h"
ping_token = "btp_abcdefghijklmnopqrstuvwxyz"
[[check]]
name = "pg"
service = "db"
tcp = "db.internal:5432"
from = "web-1"
[[alert]]
type = "telegram"
bot_token = "\${TG_TOKEN}"
chat_id = "-1001"
[[alert]]
type = "email"
smtp = "mail.example.com:587"
username = "mon"
password = "smtp-pw"
from = "mon@example.com"
to = ["ops@example.com"]
allow_private = true
[[alert]]
type = "slack"
url = "https://hooks.slack.com/services/T/B/X"
`;
const env = { PUBLIC_URL: 'https://mon.example.com', API_TOKEN: 'api-token', TG_TOKEN: 'bot:tg' };

function load(
  text: string,
  environment: Record<string, string>,
  hosts: string[] = [],
): LiveConfig & { references: Map<string, string> } {
  const result = loadConfigText(text, { env: environment, names: () => ({ checks: [], hosts }) });
  if (!result.ok) assert.fail(result.error);
  return { ...result.config, references: result.references };
}

test('export round trip: the exported text loads to the same configuration, secrets as references', () => {
  const original = load(file, env);
  const exported = exportConfig(original, original.references, []);
  const secretValues = [
    'oidc-secret',
    'key-123',
    'btp_abcdefghijklmnopqrstuvwxyz',
    'bot:tg',
    'smtp-pw',
    'hooks.slack.com',
    'api-token',
  ];
  for (const value of secretValues) assert.ok(!exported.toml.includes(value), `export leaks ${value}`);
  assert.ok(!JSON.stringify(exported.secrets).includes('smtp-pw'));

  const byName = new Map(exported.secrets.map((s) => [s.name, s]));
  assert.deepEqual(byName.get('MON_ALERT_EMAIL_PASSWORD'), {
    name: 'MON_ALERT_EMAIL_PASSWORD',
    key: 'alert[1].password',
    about: 'SMTP password of email alert email',
  });
  assert.equal(byName.get('TG_TOKEN')?.key, 'alert[0].bot_token');
  assert.equal(byName.get('MON_OIDC_COMPANY_CLIENT_SECRET')?.key, 'auth.oidc[0].client_secret');
  assert.equal(byName.get('MON_CHECK_BACKUP_PING_TOKEN')?.key, 'check[1].ping_token');
  assert.equal(byName.get('MON_CHECK_SHOP_HOME_X_API_KEY')?.key, 'check[0].headers.X-Api-Key');
  assert.equal(byName.get('MON_ALERT_SLACK_URL')?.key, 'alert[2].url');
  assert.equal(byName.get('API_TOKEN')?.key, 'check[0].headers.Authorization');
  assert.equal(byName.get('PUBLIC_URL')?.key, 'server.url');
  assert.equal(byName.get('MON_CHECK_SHOP_HOME_ACCEPT')?.key, 'check[0].headers.Accept');
  assert.equal(exported.secrets.length, 9);

  const tree = parse(exported.toml) as { check: Record<string, unknown>[] };
  assert.equal(tree.check[0]?.every, '90s');
  assert.equal(tree.check[0]?.timeout, '1500ms');
  assert.equal(tree.check[1]?.every, '1d');
  assert.deepEqual(
    { ...(tree.check[0]?.headers as object) },
    {
      Authorization: `Bearer \${API_TOKEN}`,
      'X-Api-Key': `\${MON_CHECK_SHOP_HOME_X_API_KEY}`,
      Accept: `\${MON_CHECK_SHOP_HOME_ACCEPT}`,
    },
  );

  const reloadEnv = {
    ...env,
    MON_OIDC_COMPANY_CLIENT_SECRET: 'oidc-secret',
    MON_CHECK_SHOP_HOME_X_API_KEY: 'key-123',
    MON_CHECK_SHOP_HOME_ACCEPT: 'text/html',
    MON_CHECK_BACKUP_PING_TOKEN: 'btp_abcdefghijklmnopqrstuvwxyz',
    MON_ALERT_EMAIL_PASSWORD: 'smtp-pw',
    MON_ALERT_SLACK_URL: 'https://hooks.slack.com/services/T/B/X',
  };
  const reloaded = load(exported.toml, reloadEnv);
  const { references: _a, ...before } = original;
  const { references: _b, ...after } = reloaded;
  // Header values stay references in the body, so the one turned into a reference differs by design.
  const headers = after.checks[0]!.body.headers!;
  assert.equal(headers['X-Api-Key'], `\${MON_CHECK_SHOP_HOME_X_API_KEY}`);
  headers['X-Api-Key'] = 'key-123';
  assert.equal(headers.Accept, `\${MON_CHECK_SHOP_HOME_ACCEPT}`);
  headers.Accept = 'text/html';
  assert.deepEqual(after, before);

  // Exporting again gives the same text.
  assert.equal(exportConfig(reloaded, reloaded.references, []).toml.length > 0, true);
});

test('panel checks are exported after the file checks; heartbeats keep their URL as ping_token_hash', () => {
  const original = load(
    [
      '[[check]]\nname = "pg"\nservice = "db"\ntcp = "db:5432"\n',
      '[[check]]\nname = "backup"\nservice = "db"\nevery = "1d"\n',
    ].join(''),
    {},
  );
  const token = 'btp_zyxwvutsrqponmlkjihgfedcba';
  const madeInPanel = 'btp_0123456789abcdefghijklmnop';
  const stored = [
    // The file's heartbeat has a URL made in the panel.
    { body: original.checks[1]!.body, managed: true, pingTokenHash: hashToken(madeInPanel) },
    {
      body: {
        name: 'api',
        service: 'backend',
        kind: 'http' as const,
        target: 'https://api.example',
        everyMs: 60_000,
      },
      managed: false,
      pingTokenHash: null,
    },
    {
      body: { name: 'cron', service: 'jobs', kind: 'heartbeat' as const, everyMs: 3_600_000, graceMs: null },
      managed: false,
      pingTokenHash: hashToken(token),
    },
  ];
  const exported = exportConfig(original, original.references, stored);
  assert.ok(!exported.toml.includes(token) && !exported.toml.includes(madeInPanel));
  assert.deepEqual(exported.secrets, []);
  const tree = parse(exported.toml) as { check: Record<string, unknown>[] };
  assert.equal(tree.check[1]?.ping_token_hash, `sha256:${hashToken(madeInPanel)}`);
  assert.equal(tree.check[3]?.ping_token_hash, `sha256:${hashToken(token)}`);
  const reloaded = load(exported.toml, {});
  assert.deepEqual(
    reloaded.checks.map((c) => [c.body.name, c.body.kind, c.body.everyMs, c.pingToken, c.pingTokenHash]),
    [
      ['pg', 'tcp', undefined, null, null],
      ['backup', 'heartbeat', 86_400_000, null, hashToken(madeInPanel)],
      ['api', 'http', 60_000, null, null],
      ['cron', 'heartbeat', 3_600_000, null, hashToken(token)],
    ],
  );
  assert.equal(exportConfig(reloaded, reloaded.references, []).toml, exported.toml);
});

test('an empty configuration exports to a file that loads', () => {
  const exported = staticConfig().export();
  assert.deepEqual(exported.secrets, []);
  assert.ok(loadConfigText(exported.toml, { env: {} }).ok);
});

test('check targets that use references are exported with the reference and load back the same', () => {
  const text = `
[[check]]
name = "api"
service = "shop"
url = "https://api.example.com/status?apikey=\${MY_KEY}"
[[check]]
name = "pg"
service = "db"
tcp = "\${DB_HOST}:5432"
`;
  const environment = { MY_KEY: 'topsecretvalue', DB_HOST: 'db.internal' };
  const original = load(text, environment);
  const exported = exportConfig(original, original.references, []);
  assert.ok(!exported.toml.includes('topsecretvalue'));
  const tree = parse(exported.toml) as { check: Record<string, unknown>[] };
  assert.equal(tree.check[0]?.url, `https://api.example.com/status?apikey=\${MY_KEY}`);
  assert.equal(tree.check[1]?.tcp, `\${DB_HOST}:5432`);
  assert.deepEqual(
    exported.secrets.map((s) => [s.name, s.key]),
    [
      ['MY_KEY', 'check[0].url'],
      ['DB_HOST', 'check[1].tcp'],
    ],
  );
  const reloaded = load(exported.toml, environment);
  assert.deepEqual(reloaded.checks, original.checks);
  assert.equal(exportConfig(reloaded, reloaded.references, []).toml, exported.toml);
});

test('a check that runs from a host added through the API: the export names the host with its thresholds, so a new server takes the file', () => {
  const original = load(
    '[[host]]\nname = "web-1"\ncpu = 80\n[[check]]\nname = "db-port"\nservice = "db"\ntcp = "db:5432"\nfrom = "db-1"\n',
    {},
    ['db-1'],
  );
  const api = {
    name: 'edge-api',
    service: 'edge',
    kind: 'http' as const,
    target: 'https://edge.example',
    everyMs: 60_000,
  };
  const stored = [
    { body: original.checks[0]!.body, managed: true, pingTokenHash: null },
    { body: { ...api, from: 'edge-1' }, managed: false, pingTokenHash: null },
    { body: { ...api, name: 'edge-home', from: 'edge-1' }, managed: false, pingTokenHash: null },
    { body: { ...api, name: 'web-home', from: 'web-1' }, managed: false, pingTokenHash: null },
  ];
  const edgeAlerts = { cpu: 95, memory: 90, swap: null, disk: 90, temperature: 85, ignoreMounts: ['/boot'] };
  const hosts = [
    { name: 'edge-1', alerts: edgeAlerts },
    { name: 'db-1', alerts: null },
    { name: 'idle-1', alerts: null },
  ];
  const exported = exportConfig(original, original.references, stored, [], hosts);
  const tree = parse(exported.toml) as { host: Record<string, unknown>[] };
  assert.deepEqual(
    tree.host.map((h) => ({ ...h })),
    [
      { name: 'web-1', cpu: 80 },
      { name: 'db-1' },
      { name: 'edge-1', cpu: 95, swap: false, ignore_mounts: ['/boot'] },
    ],
    "the file's, then hosts checks run from (a file check's too), with their thresholds; no other host",
  );
  // A fresh data directory knows no host: the file alone must name them.
  const fresh = loadConfigText(exported.toml, { env: {}, names: () => ({ checks: [], hosts: [] }) });
  assert.ok(fresh.ok, fresh.ok ? '' : fresh.error);
  assert.deepEqual(
    fresh.config.checks.map((c) => [c.body.name, c.body.from]),
    [
      ['db-port', 'db-1'],
      ['edge-api', 'edge-1'],
      ['edge-home', 'edge-1'],
      ['web-home', 'web-1'],
    ],
  );
  assert.deepEqual(fresh.config.hosts.find((h) => h.name === 'edge-1')?.alerts, edgeAlerts);
});
