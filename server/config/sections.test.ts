import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { z } from 'zod';
import { exportConfig } from './export.ts';
import { loadConfigText } from './load.ts';
import { sections } from './sections.ts';
import { emptyConfig } from './service.ts';

/** A file that uses every table of every section, secrets as references so that it exports as it is. */
const everyTable = `
trusted_proxies = ["10.0.0.0/8"]
[server]
url = "https://mon.example.com"
[retention]
check_results = "30d"
[auth]
password = false
[[auth.oidc]]
name = "company"
issuer = "https://id.example.com"
client_id = "mon"
client_secret = "\${OIDC_SECRET}"
[auth.proxy]
admin_groups = ["admins"]
[[service]]
name = "shop"
hosts = ["web-1"]
sites = ["shop.example.com"]
depends_on = ["db"]
tier = "low"
repository = "acme/shop"
[[host]]
name = "web-1"
disk = 80
temperature = false
ignore_mounts = ["/boot"]
[checks]
api_env = ["STATUS_TOKEN"]
[[check]]
name = "home"
service = "shop"
url = "https://shop.example.com/?key=\${SHOP_KEY}"
headers = { Authorization = "\${SHOP_AUTH}" }
expect = [{ status = "2xx" }, { response_time_below = "1s", else = "degraded" }]
[[check]]
name = "backup"
service = "db"
cron = "30 2 * * *"
timezone = "Europe/Berlin"
grace = "30m"
ping_token = "\${BACKUP_TOKEN}"
[[alert]]
type = "slack"
url = "\${SLACK_URL}"
[[alert]]
name = "ops-mail"
type = "email"
smtp = "mail.example.com:465"
tls = true
username = "mon"
password = "\${SMTP_PASSWORD}"
from = "mon@example.com"
to = ["ops@example.com"]
[notify]
remind_every = "30m"
[codehost]
secret = "\${WEBHOOK_SECRET}"
[watchdog]
every = "2m"
[watchdog.edge]
url = "https://edge.example.com/mon"
token = "\${EDGE_TOKEN}"
[watchdog.heartbeat]
url = "https://hc.example.com/ping/\${HC_PING_ID}"
[analytics]
country_database = "/var/lib/mon/GeoLite2-Country.mmdb"
`;
const env = {
  OIDC_SECRET: 'oidc-client-secret',
  SHOP_KEY: 'shop-api-key',
  SHOP_AUTH: 'Bearer shop-auth',
  BACKUP_TOKEN: `btp_${'b'.repeat(24)}`,
  SLACK_URL: 'https://hooks.slack.com/services/T/B/X',
  SMTP_PASSWORD: 'smtp-password',
  WEBHOOK_SECRET: 'webhook-secret',
  EDGE_TOKEN: 'edge-token',
  HC_PING_ID: 'hc-ping-id',
};

test('sections are registered once: unique LiveConfig fields and top-level keys', () => {
  const keys = sections.map((s) => s.key);
  assert.equal(new Set(keys).size, keys.length);
  const tables = sections.flatMap((s) => Object.keys(s.tables));
  assert.equal(new Set(tables).size, tables.length);
  assert.deepEqual(Object.keys(emptyConfig()).sort(), [...keys, 'managed'].sort());
  // Each table is known to the loader: alone it is checked by its section, not refused as unknown.
  for (const table of tables) {
    const result = loadConfigText(`${table} = 1\n`, { env: {} });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && !result.error.includes('unknown key'), `${table}: ${!result.ok && result.error}`);
  }
});

test("each section's empty value is what an empty file builds, and exports to nothing", () => {
  for (const section of sections) {
    const input = z.strictObject(section.tables).parse({});
    assert.deepEqual(section.build(input), { value: section.empty(), errors: [] }, section.key);
    assert.deepEqual(
      section.toToml(section.empty(), { stored: [], channels: [], hosts: [] }),
      {},
      section.key,
    );
  }
  const loaded = loadConfigText('', { env: {} });
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.config, emptyConfig());
  assert.deepEqual({ ...parse(exportConfig(emptyConfig(), new Map(), []).toml) }, {});
});

test('a file using every table round-trips through export and load to the same configuration', () => {
  const original = loadConfigText(everyTable, { env });
  if (!original.ok) assert.fail(original.error);
  const empty = emptyConfig() as unknown as Record<string, unknown>;
  const config = original.config as unknown as Record<string, unknown>;
  // The fixture sets every section (a new section needs its tables above).
  for (const section of sections) assert.notDeepEqual(config[section.key], empty[section.key], section.key);

  const exported = exportConfig(original.config, original.references, []);
  const tree = parse(exported.toml);
  for (const section of sections) {
    for (const table of Object.keys(section.tables)) assert.ok(table in tree, `export lacks ${table}`);
  }
  assert.deepEqual(exported.secrets.map((s) => s.name).sort(), Object.keys(env).sort());
  for (const value of Object.values(env)) assert.ok(!exported.toml.includes(value), `export leaks ${value}`);

  const reloaded = loadConfigText(exported.toml, { env });
  if (!reloaded.ok) assert.fail(reloaded.error);
  assert.deepEqual(reloaded.config, original.config);
  assert.equal(exportConfig(reloaded.config, reloaded.references, []).toml, exported.toml);
});
