import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { type ChannelBody, channelSettingsRead, type SettingsRead } from '../../protocol/notify.ts';
import type { Warnings } from '../../protocol/overview.ts';
import type { ConfigExport } from '../config/export.ts';
import { loadConfigText } from '../config/load.ts';
import { type Caller, channelServer, T0 } from './channel-testkit.ts';
import { channelSettings } from './config.ts';

/**
 * `GET /api/v1/settings` (docs/notifications.md "Channels"), and where else panel channels show: the
 * config export, the warnings' count, the names mon.toml may not take.
 */

const HOUR = 3_600_000;

const secrets = {
  fileNtfy: 'tk_file_ntfy_secret',
  fileTelegram: '999:file-telegram-bot-token',
  fileSlackPath: '/services/T0/B0/fileslackcredential',
  ntfy: 'tk_panel_ntfy_secret',
  webhook: 'whsec_panel_signing_secret',
  slackPath: '/services/T1/B1/panelslackcredential',
  discordPath: '/api/webhooks/123/paneldiscordcredential',
  telegram: '123:panel-telegram-bot-token',
  email: 'panel-smtp-password',
};

const mon = `
[[alert]]
name = "ops"
type = "ntfy"
url = "https://ntfy.example/ops"
token = "${secrets.fileNtfy}"

[[alert]]
type = "telegram"
bot_token = "${secrets.fileTelegram}"
chat_id = -100

[[alert]]
type = "slack"
url = "https://hooks.slack.example${secrets.fileSlackPath}"
`;

const panel: ChannelBody[] = [
  { name: 'team-ntfy', kind: 'ntfy', url: 'https://ntfy.example/team', secret: secrets.ntfy },
  {
    name: 'hook',
    kind: 'webhook',
    url: 'https://hooks.example/mon',
    secret: secrets.webhook,
    allowPrivate: true,
  },
  { name: 'chat', kind: 'slack', url: `https://hooks.slack.example${secrets.slackPath}` },
  { name: 'discord-ops', kind: 'discord', url: `https://discord.example${secrets.discordPath}` },
  { name: 'tg', kind: 'telegram', secret: secrets.telegram, chatId: '42' },
  {
    name: 'mail',
    kind: 'email',
    smtp: 'mail.example.com:465',
    tls: true,
    username: 'mon',
    secret: secrets.email,
    from: 'mon@example.com',
    to: ['ops@example.com'],
  },
  {
    name: 'mail-open',
    kind: 'email',
    smtp: 'mail.example.com:25',
    from: 'mon@example.com',
    to: ['a@example.com'],
  },
];

function assertNoSecret(text: string, who: string) {
  for (const [what, value] of Object.entries(secrets)) {
    assert.ok(!text.includes(value), `${who}: the ${what} secret shows`);
  }
}

test('the settings read: file channels first in file order, then the panel by name; settings for admins and write tokens only; no secret ever', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  for (const body of panel)
    assert.equal((await s.call('write', 'POST', '/api/v1/channels', body)).status, 201);

  const reads = {} as Record<Caller, SettingsRead>;
  for (const caller of ['admin', 'write', 'viewer', 'read'] as const) {
    const res = await s.call(caller, 'GET', '/api/v1/settings');
    assert.equal(res.status, 200, caller);
    assertNoSecret(JSON.stringify(res.body), caller);
    reads[caller] = res.body as SettingsRead;
  }
  assert.deepEqual(reads.write, reads.admin);
  assert.deepEqual(reads.read, reads.viewer);

  const { channels } = reads.admin;
  assert.deepEqual(
    channels.map((c) => [c.name, c.kind, c.managed, c.hasSecret]),
    [
      ['ops', 'ntfy', true, true],
      ['telegram', 'telegram', true, true],
      ['slack', 'slack', true, false],
      ['chat', 'slack', false, false],
      ['discord-ops', 'discord', false, false],
      ['hook', 'webhook', false, true],
      ['mail', 'email', false, true],
      ['mail-open', 'email', false, false],
      ['team-ntfy', 'ntfy', false, true],
      ['tg', 'telegram', false, true],
    ],
  );
  const byName = new Map(channels.map((c) => [c.name, c.settings]));
  assert.deepEqual(byName.get('chat'), channelSettingsRead({ urlHost: 'hooks.slack.example' }));
  assert.equal(byName.get('discord-ops')?.urlHost, 'discord.example');
  assert.equal(byName.get('slack')?.url, null);
  assert.deepEqual(
    [byName.get('hook')?.url, byName.get('hook')?.urlHost, byName.get('hook')?.allowPrivate],
    ['https://hooks.example/mon', 'hooks.example', true],
  );
  const mail = { smtp: 'mail.example.com:465', tls: true, username: 'mon', from: 'mon@example.com' };
  assert.deepEqual(byName.get('mail'), channelSettingsRead({ ...mail, to: ['ops@example.com'] }));
  assert.equal(byName.get('telegram')?.chatId, '-100');

  assert.deepEqual(
    reads.viewer.channels.map((c) => [c.name, c.kind, c.managed, c.settings, c.hasSecret]),
    channels.map((c) => [c.name, c.kind, c.managed, null, null]),
  );
});

test('the settings read lists silences and maintenance windows not yet ended, and holds the ids in force', async (t) => {
  const s = await channelServer();
  t.after(() => s.dispose());
  await s.server.deps.store.writer.run((db) => {
    const insert = db.prepare(
      `INSERT INTO windows (id, kind, scope, name, starts, ends, reason, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'ana@example.com', 0, 0)`,
    );
    insert.run('s-now', 'silence', 'all', null, T0 - HOUR, T0 + HOUR, 'deploy week');
    insert.run('s-later', 'silence', 'service', 'shop', T0 + 2 * HOUR, T0 + 3 * HOUR, null);
    insert.run('s-over', 'silence', 'all', null, T0 - 3 * HOUR, T0 - 2 * HOUR, null);
    insert.run('m-now', 'maintenance', 'host', 'web-1', T0 - HOUR, T0 + HOUR, 'disk swap');
  });
  const read = (await s.call('viewer', 'GET', '/api/v1/settings')).body as SettingsRead;
  assert.deepEqual(
    read.silences.map((w) => [w.id, w.scope, w.name, w.active, w.createdBy]),
    [
      ['s-now', 'all', null, true, 'ana@example.com'],
      ['s-later', 'service', 'shop', false, 'ana@example.com'],
    ],
  );
  assert.deepEqual(
    read.maintenance.map((w) => [w.id, w.reason]),
    [['m-now', 'disk swap']],
  );
  assert.deepEqual(read.holds, { silences: ['s-now'], maintenance: ['m-now'] });
  assert.deepEqual(read.channels, []);
});

test('panel channels are in the config export as [[alert]] tables, their secrets as environment references; the export loads back', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  for (const body of panel) await s.call('write', 'POST', '/api/v1/channels', body);
  const res = await s.call('write', 'GET', '/api/v1/config/export');
  assert.equal(res.status, 200);
  const exported = res.body as ConfigExport;
  assertNoSecret(JSON.stringify(exported), 'the export');
  const byKey = new Map(exported.secrets.map((r) => [r.key, r]));
  assert.deepEqual(byKey.get('alert[3].url'), {
    name: 'MON_ALERT_CHAT_URL',
    key: 'alert[3].url',
    about: 'Webhook URL of Slack alert chat',
  });
  assert.equal(byKey.get('alert[9].bot_token')?.name, 'MON_ALERT_TG_BOT_TOKEN');
  assert.equal(byKey.get('alert[6].password')?.name, 'MON_ALERT_MAIL_PASSWORD');
  assert.equal(byKey.get('alert[7].password'), undefined, 'no password, no reference');

  // Loaded with the variables set, every channel comes back as it was.
  const env: Record<string, string> = {
    MON_ALERT_OPS_TOKEN: secrets.fileNtfy,
    MON_ALERT_TELEGRAM_BOT_TOKEN: secrets.fileTelegram,
    MON_ALERT_SLACK_URL: `https://hooks.slack.example${secrets.fileSlackPath}`,
    MON_ALERT_CHAT_URL: `https://hooks.slack.example${secrets.slackPath}`,
    MON_ALERT_DISCORD_OPS_URL: `https://discord.example${secrets.discordPath}`,
    MON_ALERT_HOOK_SECRET: secrets.webhook,
    MON_ALERT_MAIL_PASSWORD: secrets.email,
    MON_ALERT_TEAM_NTFY_TOKEN: secrets.ntfy,
    MON_ALERT_TG_BOT_TOKEN: secrets.telegram,
  };
  assert.deepEqual(exported.secrets.map((r) => r.name).sort(), Object.keys(env).sort());
  const loaded = loadConfigText(exported.toml, { env });
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.error);
  const current = s.server.deps.config.current().alerts;
  const settingsRead = (await s.call('write', 'GET', '/api/v1/settings')).body as SettingsRead;
  assert.deepEqual(
    loaded.config.alerts.map((a) => a.name),
    settingsRead.channels.map((c) => c.name),
  );
  assert.deepEqual(
    loaded.config.alerts.slice(0, current.length).map((a) => a.settings),
    current.map((a) => a.settings),
  );
  const mail = loaded.config.alerts.find((a) => a.name === 'mail');
  assert.deepEqual(
    mail?.settings,
    channelSettings({
      secret: secrets.email,
      smtp: 'mail.example.com:465',
      tls: true,
      username: 'mon',
      from: 'mon@example.com',
      to: ['ops@example.com'],
    }),
  );
});

test('an [[alert]] may not take the name of a panel channel; the file loads once that channel is gone; warnings count both', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  await s.call('write', 'POST', '/api/v1/channels', panel[0]);
  const warnings = async () => ((await s.call('read', 'GET', '/api/v1/warnings')).body as Warnings).channels;
  assert.equal(await warnings(), 4);

  writeFileSync(
    s.configPath,
    `${mon}\n[[alert]]\nname = "team-ntfy"\ntype = "ntfy"\nurl = "https://ntfy.example/x"\n`,
  );
  s.server.deps.config.reload();
  assert.equal(
    s.server.deps.config.error(),
    'alert[3].name: collides with the channel "team-ntfy" made in the panel; rename one of them (the whole file is rejected until then)',
  );
  assert.equal(s.server.deps.config.current().alerts.length, 3, 'the last good file stays');

  assert.equal((await s.call('write', 'DELETE', '/api/v1/channels/team-ntfy')).status, 204);
  assert.equal(s.server.deps.config.error(), null);
  const read = (await s.call('write', 'GET', '/api/v1/settings')).body as SettingsRead;
  assert.deepEqual(
    read.channels.map((c) => [c.name, c.managed]),
    [
      ['ops', true],
      ['telegram', true],
      ['slack', true],
      ['team-ntfy', true],
    ],
  );
  assert.equal(await warnings(), 4);
});
