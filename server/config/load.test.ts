import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashToken } from '../checks/ping-tokens.ts';
import { type LoadOptions, loadConfigText } from './load.ts';

function errorOf(text: string, options: LoadOptions = { env: {} }): string {
  const result = loadConfigText(text, options);
  assert.equal(result.ok, false, 'expected the file to be rejected');
  return result.ok ? '' : result.error;
}

function configOf(text: string, options: LoadOptions = { env: {} }) {
  const result = loadConfigText(text, options);
  if (!result.ok) assert.fail(result.error);
  return result.config;
}

const check = (name: string, service: string, target: string) =>
  `[[check]]\nname = "${name}"\nservice = "${service}"\n${target}\n`;

test('an empty file is an empty configuration with defaults', () => {
  const config = configOf('');
  assert.deepEqual(config.checks, []);
  assert.equal(config.retention.checkResultsMs, 90 * 86_400_000);
  assert.equal(config.auth.password, true);
});

test('a syntax error gives line and column', () => {
  assert.match(errorOf('a = 1\nb = [\nc = "x'), /^line 3, column 1: /);
});

test('schema errors carry exact 0-based paths in file keys', () => {
  const text = [
    check('a', 's', 'url = "https://a.example"'),
    check('b', 's', 'url = "https://b.example"\nevery = 30'),
    check(
      'c',
      's',
      'url = "https://c.example"\nevery = "5s"\nexpect = [{ status = 200 }, { body_contain = "x" }]',
    ),
    '[[checkz]]\n',
  ].join('');
  assert.equal(
    errorOf(text),
    [
      'check[1].every: use a duration such as 30s, 5m or 1h30m',
      'check[2].every: must be at least 10s',
      'check[2].expect[1].body_contain: unknown key',
      'checkz: unknown key',
    ].join('\n'),
  );
});

test('check rules are those of the API body, named by file keys', () => {
  const text = [
    check('a', 's', 'url = "ftp://x"'),
    check('b', 's', 'url = "https://x"\ntcp = "x:1"'),
    check('c', 's', 'tcp = "db:5432"\ncommand = "pg_isready"'),
    check('d', 's', ''),
    check('e', 's', 'url = "https://x"\nevery = "10s"\ntimeout = "20s"'),
    check('f', 's', 'every = "1m"\ncron = "0 3 * * *"'),
    check('g', 's', 'ping = "h"\nping_token = "btp_abcdefghijklmnopqrstuvwxyz"'),
    check('h', 's', 'dns = "example.com"\nmethod = "get"'),
  ].join('');
  const lines = errorOf(text).split('\n');
  assert.deepEqual(lines, [
    'check[0].url: must be an http:// or https:// URL',
    'check[1].tcp: a check takes one target key; url is also set',
    "check[2].command: command checks are declared in an agent's checks file (checks.toml), not in mon.toml",
    'check[3]: needs one target key (url, tcp, dns, ping or domain), or every or cron for a heartbeat',
    'check[4].timeout: must not exceed every',
    'check[5].cron: a heartbeat takes every or cron',
    'check[6].ping_token: only heartbeats take a ping_token',
    'check[7].method: only http checks take a method',
  ]);
});

test('translates checks and heartbeats to API bodies', () => {
  const config = configOf(
    [
      check(
        'home',
        'shop',
        'url = "https://shop.example"\nmethod = "post"\nevery = "30s"\ntimeout = "5s"\nexpect = [{ status = "3xx" }, { response_time_below = "2s", else = "degraded" }]',
      ),
      check(
        'backup',
        'db',
        'cron = "0 3 * * *"\ntimezone = "Europe/Berlin"\ngrace = "1h"\nping_token = "btp_abcdefghijklmnopqrstuvwxyz"',
      ),
    ].join(''),
  );
  assert.deepEqual(config.checks[0], {
    index: 0,
    pingToken: null,
    pingTokenHash: null,
    body: {
      name: 'home',
      service: 'shop',
      kind: 'http',
      target: 'https://shop.example',
      method: 'POST',
      everyMs: 30_000,
      timeoutMs: 5000,
      expect: [{ status: '3xx' }, { responseTimeBelowMs: 2000, degraded: true }],
    },
  });
  assert.deepEqual(config.checks[1], {
    index: 1,
    pingToken: 'btp_abcdefghijklmnopqrstuvwxyz',
    pingTokenHash: hashToken('btp_abcdefghijklmnopqrstuvwxyz'),
    body: {
      name: 'backup',
      service: 'db',
      kind: 'heartbeat',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      graceMs: 3_600_000,
    },
  });
  assert.ok(config.managed.checks.has('backup'));
  assert.ok(config.managed.services.has('shop'));
});

test('references to environment variables are taken from the environment; targets and header values keep the reference', () => {
  const target = `url = "\${BASE}/health"\nheaders = { Authorization = "Bearer \${API_TOKEN}" }`;
  const text = `${check('api', 's', target)}
[[alert]]
type = "telegram"
bot_token = "\${TG_TOKEN}"
chat_id = 42
`;
  const env = { BASE: 'https://api.example', API_TOKEN: 't0k', TG_TOKEN: 'bot:123' };
  const config = configOf(text, { env });
  assert.equal(config.checks[0]?.body.target, `\${BASE}/health`);
  assert.deepEqual(config.checks[0]?.body.headers, { Authorization: `Bearer \${API_TOKEN}` });
  assert.equal(config.alerts[0]?.settings.secret, 'bot:123');
  assert.equal(config.alerts[0]?.settings.chatId, '42');
  assert.equal(config.alerts[0]?.name, 'telegram');

  assert.equal(
    errorOf(text, { env: { BASE: 'x', TG_TOKEN: 'y' } }),
    'check[0].headers.Authorization: environment variable API_TOKEN is not set',
  );
  assert.equal(
    errorOf(text, { env: { API_TOKEN: 'x', TG_TOKEN: 'y' } }),
    'check[0].url: environment variable BASE is not set',
  );
});

test('services, hosts and alerts', () => {
  const config = configOf(`
trusted_proxies = ["10.0.0.0/8", "fd00::/8", "127.0.0.1"]
[server]
url = "https://mon.example.com/"
[retention]
check_results = "30d"
[[service]]
name = "shop"
hosts = ["web-1"]
sites = ["Shop.Example.com"]
depends_on = ["db"]
tier = "critical"
[[service]]
name = "db"
[[host]]
name = "web-1"
cpu = 95
swap = false
ignore_mounts = ["/boot"]
[[alert]]
type = "email"
smtp = "mail.example.com:587"
username = "mon"
password = "pw"
from = "mon@example.com"
to = ["ops@example.com"]
[[alert]]
type = "email"
smtp = "mail.example.com:465"
from = "mon@example.com"
to = ["dev@example.com"]
`);
  assert.deepEqual(config.server, {
    url: 'https://mon.example.com',
    trustedProxies: ['10.0.0.0/8', 'fd00::/8', '127.0.0.1'],
  });
  assert.equal(config.retention.checkResultsMs, 30 * 86_400_000);
  assert.deepEqual(config.services[0], {
    name: 'shop',
    hosts: ['web-1'],
    sites: ['shop.example.com'],
    dependsOn: ['db'],
    tier: 'critical',
  });
  assert.equal(config.services[1]?.tier, 'standard');
  assert.deepEqual(config.hosts[0]?.alerts, {
    cpu: 95,
    memory: 90,
    swap: null,
    disk: 90,
    temperature: 85,
    ignoreMounts: ['/boot'],
  });
  assert.deepEqual(
    config.alerts.map((a) => a.name),
    ['email', 'email-2'],
  );
  assert.equal(config.alerts[0]?.settings.secret, 'pw');
  assert.ok(config.managed.alerts.has('email-2'));
  assert.ok(config.managed.hosts.has('web-1'));
});

test('alert keys are checked per type', () => {
  const error = errorOf(`
[[alert]]
type = "email"
smtp = "mail:99999"
[[alert]]
type = "telegram"
url = "https://x.example"
[[alert]]
type = "webhook"
url = "https://hook.example"
token = "t"
`);
  assert.match(error, /^alert\[0\]\.smtp: port must be 1 to 65535$/m);
  const fixed = errorOf(`
[[alert]]
type = "email"
smtp = "mail:25"
password = "p"
[[alert]]
type = "telegram"
url = "https://x.example"
[[alert]]
type = "webhook"
url = "https://hook.example"
token = "t"
`);
  assert.deepEqual(fixed.split('\n'), [
    'alert[0].from: required for email alerts',
    'alert[0].to: required for email alerts',
    'alert[0].password: needs username',
    'alert[1].url: not used by telegram alerts',
    'alert[1].bot_token: required for telegram alerts',
    'alert[1].chat_id: required for telegram alerts',
    'alert[2].token: not used by webhook alerts',
  ]);
});

test('dependencies must exist and must not loop', () => {
  assert.equal(
    errorOf('[[service]]\nname = "a"\ndepends_on = ["b"]\n'),
    'service[0].depends_on[0]: unknown service "b"; name a [[service]] or the service of a [[check]] in this file',
  );
  assert.equal(
    errorOf('[[service]]\nname = "a"\ndepends_on = ["b"]\n[[service]]\nname = "b"\ndepends_on = ["a"]\n'),
    'service[0].depends_on: dependency loop: a → b → a',
  );
  // A service named only by a check counts.
  configOf(`[[service]]\nname = "a"\ndepends_on = ["db"]\n${check('pg', 'db', 'tcp = "db:5432"')}`);
});

test('name collisions within the file', () => {
  const error = errorOf(
    [
      check('a', 's', 'ping = "h"'),
      check('a', 's', 'ping = "h"'),
      check('s', 't', 'ping = "h"'),
      '[[service]]\nname = "t"\n',
    ].join(''),
  );
  assert.deepEqual(error.split('\n'), [
    'check[1].name: check[0] already has the check name "a"',
    'check[2].name: "s" is also a service (check[0]); checks and services need different names',
  ]);
});

test('two heartbeats cannot share a ping token', () => {
  const hb = (name: string) =>
    check(name, 'jobs', 'every = "1h"\nping_token = "btp_abcdefghijklmnopqrstuvwxyz"');
  assert.equal(errorOf(hb('a') + hb('b')), 'check[1].ping_token: check[0] has the same ping URL');
});

test('a collision with a panel check rejects the whole file', () => {
  const names = () => ({ checks: [{ name: 'api', source: 'panel' as const }] });
  const text = [
    check('api', 's', 'url = "https://x.example"'),
    check('ok', 's', 'ping = "h"'),
    check('api2', 's', 'ping = "h"'),
  ].join('');
  assert.deepEqual(errorOf(text, { env: {}, names }).split('\n'), [
    'check[0].name: collides with the panel check "api"; rename one of them (the whole file is rejected until then)',
  ]);
  assert.match(
    errorOf(check('x', 'api', 'ping = "h"'), { env: {}, names }),
    /^check\[0\]\.service: collides with the panel check "api"/,
  );
  assert.equal(
    errorOf(check('backend', 's', 'ping = "h"'), {
      env: {},
      names: () => ({
        checks: [],
        services: [{ name: 'backend', checks: true, sites: false, hosts: false }],
      }),
    }),
    'check[0].name: collides with the service "backend", which has panel checks; rename the check (the whole file is rejected until then)',
  );
});

test("a check's from must name a host of the file or one known outside it", () => {
  const pinged = (name: string, from: string) => check(name, 's', `ping = "h"\nfrom = "${from}"`);
  assert.equal(
    errorOf(check('ok', 's', 'ping = "h"') + pinged('far', 'web-1')),
    'check[1].from: no host named "web-1": add it with POST /api/v1/hosts, or name it in a [[host]] or a service\'s hosts',
  );
  // A [[host]] or a service's hosts in the same file, or a host the database knows.
  configOf(`${pinged('a', 'web-1')}[[host]]\nname = "web-1"\n`);
  configOf(`${pinged('a', 'web-2')}[[service]]\nname = "t"\nhosts = ["web-2"]\n`);
  const config = configOf(pinged('a', 'web-3'), {
    env: {},
    names: () => ({ checks: [], hosts: ['web-3'] }),
  });
  assert.equal(config.checks[0]!.body.from, 'web-3');
});

test("a panel check's from must stay a known host: the file that drops it is rejected", () => {
  const panel = (hosts: string[]) => () => ({
    checks: [
      { name: 'db', source: 'panel' as const, from: 'svc-host' },
      { name: 'home', source: 'panel' as const, from: null },
    ],
    hosts,
  });
  const service = '[[service]]\nname = "edge"\nhosts = ["svc-host"]\n';
  configOf(service, { env: {}, names: panel([]) });
  configOf('[[host]]\nname = "svc-host"\n', { env: {}, names: panel([]) });
  configOf('', { env: {}, names: panel(['svc-host']) });
  assert.equal(
    errorOf('[[service]]\nname = "edge"\n', { env: {}, names: panel([]) }),
    'the panel check "db" runs from the host "svc-host", which this file no longer names: keep it in a [[host]] or a service\'s hosts, add it with POST /api/v1/hosts, or change the check\'s from (the whole file is rejected until then)',
  );
});

test('top-level tables are validated', () => {
  assert.deepEqual(
    errorOf(
      'trusted_proxies = ["10.0.0.0/33", "fe80::/64", "nope"]\n[server]\nurl = "x"\n[retention]\ncheck_results = "1h"\n[auth]\npassword = "yes"\n',
    ).split('\n'),
    [
      'server.url: must be an http:// or https:// URL',
      'trusted_proxies[0]: must be an IP address or a CIDR range such as 10.0.0.0/8',
      'trusted_proxies[2]: must be an IP address or a CIDR range such as 10.0.0.0/8',
      'retention.check_results: must be at least 1d',
      'auth.password: must be true or false',
    ],
  );
  assert.equal(
    errorOf('[[host]]\nname = "h"\ncpu = 150\n'),
    'host[0].cpu: must be a number from 1 to 100, or false',
  );
  assert.equal(errorOf('[[service]]\nname = "s"\ntier = "gold"\n').split(':')[0], 'service[0].tier');
});

test("a [[host]] table takes the API's limits: at most 100 mounts left out", () => {
  const mounts = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `/mnt/${i}`));
  assert.equal(
    errorOf(`[[host]]\nname = "h"\nignore_mounts = ${mounts(101)}\n`),
    'host[0].ignore_mounts: must list at most 100 mounts',
  );
  assert.equal(
    configOf(`[[host]]\nname = "h"\nignore_mounts = ${mounts(100)}\n`).hosts[0]?.alerts.ignoreMounts.length,
    100,
  );
  assert.deepEqual(
    configOf('[[host]]\nname = "h"\nignore_mounts = ["/mnt/My Drive", "/boot/"]\n').hosts[0]?.alerts
      .ignoreMounts,
    ['/mnt/My Drive', '/boot'],
    'a space is part of a mount point; a trailing slash is dropped',
  );
});

test('every target key keeps its references; a variable that is not set names it and the key', () => {
  const text = [
    check('web', 's', `url = "http://127.0.0.1:9/?apikey=\${MY_KEY}"`),
    check('db', 's', `tcp = "\${DB_HOST}:\${DB_PORT}"`),
    check('name', 's', `dns = "\${ZONE}.example.com"`),
    check('box', 's', `ping = "\${BOX}"`),
    check('reg', 's', `domain = "\${DOMAIN}"`),
  ].join('');
  const env = {
    MY_KEY: 'topsecretvalue',
    DB_HOST: 'db',
    DB_PORT: '5432',
    ZONE: 'a',
    BOX: 'b',
    DOMAIN: 'c.io',
  };
  const config = configOf(text, { env });
  assert.deepEqual(
    config.checks.map((c) => c.body.target),
    [
      `http://127.0.0.1:9/?apikey=\${MY_KEY}`,
      `\${DB_HOST}:\${DB_PORT}`,
      `\${ZONE}.example.com`,
      `\${BOX}`,
      `\${DOMAIN}`,
    ],
  );
  assert.ok(!JSON.stringify(config).includes('topsecretvalue'));
  assert.equal(
    errorOf(text, { env: { ...env, MY_KEY: undefined, DB_PORT: undefined } }),
    'check[0].url: environment variable MY_KEY is not set\ncheck[1].tcp: environment variable DB_PORT is not set',
  );
  // The rest of the target is validated as usual.
  assert.equal(
    errorOf(check('db', 's', `tcp = "\${DB_HOST}:port"`), { env }),
    'check[0].tcp: must be host:port',
  );
});

test('a heartbeat takes its token as ping_token or as the stored hash in ping_token_hash', () => {
  const token = 'btp_abcdefghijklmnopqrstuvwxyz';
  const hash = `sha256:${hashToken(token)}`;
  const config = configOf(check('a', 'jobs', `every = "1h"\nping_token_hash = "${hash}"`));
  assert.equal(config.checks[0]?.pingToken, null);
  assert.equal(config.checks[0]?.pingTokenHash, hashToken(token));
  assert.deepEqual(
    errorOf(
      [
        check('a', 'jobs', `every = "1h"\nping_token = "${token}"`),
        check('b', 'jobs', `every = "1h"\nping_token_hash = "${hash}"`),
        check('c', 'jobs', `every = "1h"\nping_token_hash = "${hash.toUpperCase()}"`),
        check('d', 'jobs', `every = "1h"\nping_token = "${token}x"\nping_token_hash = "${hash}"`),
        check('e', 'jobs', `ping = "h"\nping_token_hash = "${hash}"`),
      ].join(''),
    ).split('\n'),
    [
      'check[1].ping_token_hash: check[0] has the same ping URL',
      'check[2].ping_token_hash: must be sha256: followed by 64 lowercase hex digits, as the export writes it',
      'check[3].ping_token_hash: give ping_token or ping_token_hash, not both',
      'check[4].ping_token_hash: only heartbeats take a ping_token_hash',
    ],
  );
});
