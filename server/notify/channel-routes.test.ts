import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ChannelBody, ChannelRead, SettingsRead } from '../../protocol/notify.ts';
import { loadConfigText } from '../config/load.ts';
import { int, scalar } from '../store/rows.ts';
import { beforeNextJob } from '../testing.ts';
import { storedChannel } from './channel-store.ts';
import { type ChannelServer, channelServer } from './channel-testkit.ts';

/** `POST /api/v1/channels`, `PUT` and `DELETE /channels/{name}` (docs/notifications.md "Channels"). */

const mon = `
[[alert]]
name = "ops"
type = "ntfy"
url = "https://ntfy.example/ops"
token = "tk_file_secret_value"

[[alert]]
type = "slack"
url = "https://hooks.slack.example/services/T1/B1/filesecretpath"
`;

const ntfy: ChannelBody = {
  name: 'team',
  kind: 'ntfy',
  url: 'https://ntfy.example/team',
  secret: 'tk_team_first',
  allowPrivate: false,
};
const email: ChannelBody = {
  name: 'mail',
  kind: 'email',
  smtp: 'mail.example.com:587',
  tls: null,
  username: 'mon',
  secret: 'smtp-password-1',
  from: 'mon@example.com',
  to: ['ops@example.com', 'dev@example.com'],
};

const channelCount = (s: ChannelServer) =>
  scalar(s.server.deps.store.read, 'SELECT count(*) AS n FROM channels', int);
const readChannel = async (s: ChannelServer, name: string): Promise<ChannelRead | undefined> =>
  ((await s.call('admin', 'GET', '/api/v1/settings')).body as SettingsRead).channels.find(
    (c) => c.name === name,
  );

test('POST makes a channel: 201 with its name, stored with its secret and who made it; names taken are 409', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  const made = await s.call('write', 'POST', '/api/v1/channels', ntfy);
  assert.equal(made.status, 201);
  assert.deepEqual(made.body, { name: 'team' });
  const stored = storedChannel(s.server.deps.store.read, 'team');
  assert.equal(stored?.settings.secret, 'tk_team_first');
  assert.equal(stored?.settings.url, 'https://ntfy.example/team');
  const row = s.server.deps.store.read
    .prepare('SELECT created_by AS by, created_at AS at FROM channels WHERE name = ?')
    .get('team');
  assert.deepEqual({ ...row }, { by: 'write token', at: s.clock.now() });

  assert.equal((await s.call('admin', 'POST', '/api/v1/channels', email)).status, 201);
  assert.equal(
    s.server.deps.store.read.prepare('SELECT created_by AS by FROM channels WHERE name = ?').get('mail')?.by,
    'admin@example.com',
  );

  const again = await s.call('admin', 'POST', '/api/v1/channels', {
    ...ntfy,
    url: 'https://other.example/x',
  });
  assert.equal(again.status, 409);
  assert.match(again.body.detail, /a channel named "team" exists/);
  const file = await s.call('write', 'POST', '/api/v1/channels', { ...ntfy, name: 'ops' });
  assert.equal(file.status, 409);
  assert.equal(file.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.match(file.body.detail, /mon\.toml/);
  assert.equal(storedChannel(s.server.deps.store.read, 'team')?.settings.url, 'https://ntfy.example/team');
  assert.equal(channelCount(s), 2);
});

test('bad bodies: 400 for a body that is no object, 422 naming the field; nothing is stored', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  const cases: [unknown, number, string][] = [
    [[ntfy], 400, 'the body must be a JSON object'],
    [{ ...ntfy, color: 'red' }, 422, 'color: unknown field'],
    [{ ...ntfy, name: 'slack' }, 422, 'name: "slack" is the kind of name mon gives an [[alert]] table'],
    [{ ...ntfy, name: 'email-2' }, 422, 'name: "email-2" is the kind of name'],
    [{ ...ntfy, name: 'Team A' }, 422, 'name: must be lowercase letters, digits and hyphens'],
    [{ ...ntfy, name: 'x'.repeat(61) }, 422, 'name: must be lowercase letters'],
    [{ ...ntfy, kind: 'sms' }, 422, 'kind: must be one of ntfy, webhook, slack, discord, telegram, email'],
    [{ name: 'team' }, 422, 'kind: required'],
    [{ ...ntfy, url: 'ftp://ntfy.example/team' }, 422, 'url: must be an http:// or https:// URL'],
    [{ ...ntfy, url: null }, 422, 'url: required for ntfy channels'],
    [{ ...ntfy, chatId: '42' }, 422, 'chatId: not used by ntfy channels'],
    [{ ...ntfy, secret: 'x'.repeat(4097) }, 422, 'secret: must be at most 4096 characters'],
    [{ ...ntfy, allowPrivate: 'yes' }, 422, 'allowPrivate: must be true or false'],
    [
      { name: 'chat', kind: 'slack', url: 'https://hooks.slack.example/x', secret: 'abc' },
      422,
      'secret: not used by slack channels',
    ],
    [
      { name: 'chat', kind: 'discord', url: 'https://discord.example/x', allowPrivate: true },
      422,
      'allowPrivate: not used by discord channels',
    ],
    [{ name: 'tg', kind: 'telegram', secret: '123:abc' }, 422, 'chatId: required for telegram channels'],
    [{ name: 'tg', kind: 'telegram', chatId: '42' }, 422, 'secret: required for telegram channels'],
    [
      { name: 'tg', kind: 'telegram', chatId: '42', secret: '' },
      422,
      'secret: required for telegram channels',
    ],
    [{ ...email, smtp: 'mail.example.com' }, 422, 'smtp: must be host:port'],
    [{ ...email, smtp: 'mail.example.com:70000' }, 422, 'smtp: port must be 1 to 65535'],
    [{ ...email, from: 'mon' }, 422, 'from: must be an email address'],
    [{ ...email, to: [] }, 422, 'to: must list at least one address'],
    [{ ...email, to: ['ops@example.com', 'nobody'] }, 422, 'to[1]: must be an email address'],
    [{ ...email, to: null }, 422, 'to: required for email channels'],
    [{ ...email, tls: 'on' }, 422, 'tls: must be true or false'],
    [{ ...email, username: null }, 422, 'secret: needs username'],
    [{ ...email, url: 'https://mail.example.com' }, 422, 'url: not used by email channels'],
  ];
  for (const [body, status, detail] of cases) {
    const res = await s.call('write', 'POST', '/api/v1/channels', body);
    assert.equal(res.status, status, JSON.stringify(body));
    assert.ok(
      String(res.body.detail).startsWith(detail),
      `${JSON.stringify(body).slice(0, 80)}: ${res.body.detail}`,
    );
  }
  assert.equal(channelCount(s), 0);
});

test('PUT: a null secret keeps it, "" removes an optional one, a string replaces it; Slack keeps its URL on null', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  const secretOf = (name: string) => storedChannel(s.server.deps.store.read, name)?.settings.secret;
  const put = (body: ChannelBody) => s.call('write', 'PUT', `/api/v1/channels/${body.name}`, body);
  await s.call('write', 'POST', '/api/v1/channels', ntfy);

  assert.equal((await put({ ...ntfy, url: 'https://ntfy.example/team2', secret: null })).status, 204);
  assert.equal(secretOf('team'), 'tk_team_first');
  assert.equal((await readChannel(s, 'team'))?.settings?.url, 'https://ntfy.example/team2');
  assert.equal((await readChannel(s, 'team'))?.hasSecret, true);
  const { secret: _, ...withoutSecret } = ntfy;
  assert.equal((await put(withoutSecret)).status, 204, 'absent is the same as null');
  assert.equal(secretOf('team'), 'tk_team_first');
  assert.equal((await put({ ...ntfy, secret: 'tk_team_second' })).status, 204);
  assert.equal(secretOf('team'), 'tk_team_second');
  assert.equal((await put({ ...ntfy, secret: '' })).status, 204);
  assert.equal(secretOf('team'), null);
  assert.equal((await readChannel(s, 'team'))?.hasSecret, false);

  // Telegram cannot do without its bot token.
  const tg: ChannelBody = {
    name: 'tg',
    kind: 'telegram',
    secret: '123456:bot-token-value',
    chatId: '-100200',
  };
  assert.equal((await s.call('write', 'POST', '/api/v1/channels', tg)).status, 201);
  const removed = await put({ ...tg, secret: '' });
  assert.equal(removed.status, 422);
  assert.match(removed.body.detail, /^secret: required for telegram channels/);
  assert.equal((await put({ ...tg, secret: null, chatId: '-100300' })).status, 204);
  assert.equal(secretOf('tg'), '123456:bot-token-value');
  assert.equal((await readChannel(s, 'tg'))?.settings?.chatId, '-100300');

  // The URL of a Slack channel is its credential: null keeps it, a new one replaces it.
  const slack: ChannelBody = {
    name: 'chat',
    kind: 'slack',
    url: 'https://hooks.slack.example/services/A/B/first',
  };
  assert.equal((await s.call('write', 'POST', '/api/v1/channels', slack)).status, 201);
  assert.equal((await put({ ...slack, url: null })).status, 204);
  const urlOf = (name: string) => storedChannel(s.server.deps.store.read, name)?.settings.url;
  assert.equal(urlOf('chat'), 'https://hooks.slack.example/services/A/B/first');
  assert.equal((await put({ ...slack, url: 'https://hooks.slack.example/services/A/B/second' })).status, 204);
  assert.equal(urlOf('chat'), 'https://hooks.slack.example/services/A/B/second');
  // An ntfy URL is no secret: null leaves the channel without one, which ntfy requires.
  assert.match((await put({ ...ntfy, url: null })).body.detail, /^url: required for ntfy channels/);

  // An email channel without a username keeps no password, the stored one included.
  assert.equal((await s.call('write', 'POST', '/api/v1/channels', email)).status, 201);
  assert.equal((await put({ ...email, secret: null })).status, 204);
  assert.equal(secretOf('mail'), 'smtp-password-1');
  assert.equal((await put({ ...email, secret: null, username: null })).status, 204);
  assert.equal(secretOf('mail'), null);
  assert.equal((await readChannel(s, 'mail'))?.hasSecret, false);
});

test('PUT and DELETE: unknown names 404, file channels 409, another name or kind 422', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  await s.call('write', 'POST', '/api/v1/channels', ntfy);
  const put = (name: string, body: unknown) => s.call('write', 'PUT', `/api/v1/channels/${name}`, body);

  assert.equal((await put('nobody', { ...ntfy, name: 'nobody' })).status, 404);
  assert.equal((await s.call('write', 'DELETE', '/api/v1/channels/nobody')).status, 404);
  const fileChange = await put('ops', { ...ntfy, name: 'ops' });
  assert.equal(fileChange.status, 409);
  assert.match(fileChange.body.detail, /set in mon\.toml; change it there/);
  assert.equal((await put('slack', { name: 'slack', kind: 'slack', url: null })).status, 409);
  assert.equal((await s.call('admin', 'DELETE', '/api/v1/channels/ops')).status, 409);

  const renamed = await put('team', { ...ntfy, name: 'team2' });
  assert.equal(renamed.status, 422);
  assert.match(renamed.body.detail, /^name: must be "team": a channel keeps its name/);
  const rekinded = await put('team', { ...ntfy, kind: 'webhook' });
  assert.equal(rekinded.status, 422);
  assert.match(rekinded.body.detail, /^kind: must be ntfy: a channel keeps its kind/);
  assert.equal((await put('team', { ...ntfy, secret: 'x', extra: 1 })).body.detail, 'extra: unknown field');
  assert.equal(storedChannel(s.server.deps.store.read, 'team')?.settings.secret, 'tk_team_first');

  assert.equal((await s.call('admin', 'DELETE', '/api/v1/channels/team')).status, 204);
  assert.equal(storedChannel(s.server.deps.store.read, 'team'), null);
  assert.equal((await s.call('admin', 'DELETE', '/api/v1/channels/team')).status, 404);
  assert.equal((await put('team', ntfy)).status, 404);
});

test('channel writes: 401 without credentials, 403 for viewers and read tokens; nothing changes', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  await s.call('write', 'POST', '/api/v1/channels', ntfy);
  const writes: ['POST' | 'PUT' | 'DELETE', string, unknown][] = [
    ['POST', '/api/v1/channels', { ...ntfy, name: 'other' }],
    ['PUT', '/api/v1/channels/team', { ...ntfy, secret: 'changed' }],
    ['DELETE', '/api/v1/channels/team', undefined],
    ['POST', '/api/v1/channels/team/test', undefined],
  ];
  for (const [method, url, body] of writes) {
    assert.equal((await s.call('none', method, url, body)).status, 401, `${method} ${url}`);
    const viewer = await s.call('viewer', method, url, body);
    assert.equal(viewer.status, 403, `${method} ${url}`);
    assert.equal(viewer.body.title, 'only admins can do this');
    assert.equal((await s.call('read', method, url, body)).status, 403, `${method} ${url}`);
  }
  assert.equal(channelCount(s), 1);
  assert.equal(storedChannel(s.server.deps.store.read, 'team')?.settings.secret, 'tk_team_first');
  assert.equal((await s.call('none', 'GET', '/api/v1/settings')).status, 401);
});

test('PUT keeps a stored secret only where it went: another origin or SMTP server needs it again (422)', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  const stored = (name: string) => storedChannel(s.server.deps.store.read, name)?.settings;
  const put = (body: ChannelBody) => s.call('write', 'PUT', `/api/v1/channels/${body.name}`, body);
  const hook: ChannelBody = {
    name: 'hook',
    kind: 'webhook',
    url: 'https://hooks.example.com/mon',
    secret: 'whsec-stored',
  };
  for (const body of [ntfy, hook, email])
    assert.equal((await s.call('write', 'POST', '/api/v1/channels', body)).status, 201);

  // A write token cannot read secrets: it must not send them to a host of its own either.
  for (const url of [
    'https://attacker.example/team',
    'http://ntfy.example/team',
    'https://ntfy.example:8443/team',
    'https://ntfy.example.attacker.example/team',
  ]) {
    for (const body of [
      { ...ntfy, url, secret: null },
      { ...ntfy, url, secret: undefined },
    ]) {
      const moved = await put(body);
      assert.equal(moved.status, 422, url);
      assert.equal(moved.body.detail, 'secret: required when the URL moves to another host');
    }
  }
  assert.deepEqual(
    [stored('team')?.url, stored('team')?.secret],
    ['https://ntfy.example/team', 'tk_team_first'],
  );
  const movedHook = await put({ ...hook, url: 'https://attacker.example/mon', secret: null });
  assert.equal(movedHook.body.detail, 'secret: required when the URL moves to another host');
  assert.equal(stored('hook')?.url, 'https://hooks.example.com/mon');

  for (const smtp of ['attacker.example:587', 'mail.example.com:2525']) {
    const moved = await put({ ...email, smtp, secret: null });
    assert.equal(moved.status, 422, smtp);
    assert.equal(moved.body.detail, 'secret: required when the SMTP server moves to another host');
  }
  assert.deepEqual(
    [stored('mail')?.smtp, stored('mail')?.secret],
    ['mail.example.com:587', 'smtp-password-1'],
  );

  // The same origin or server keeps it; a new secret, or none, may go anywhere.
  assert.equal((await put({ ...ntfy, url: 'https://NTFY.example:443/other', secret: null })).status, 204);
  assert.equal(stored('team')?.secret, 'tk_team_first');
  assert.equal((await put({ ...email, smtp: 'MAIL.example.com:587', secret: null })).status, 204);
  assert.equal(stored('mail')?.secret, 'smtp-password-1');
  assert.equal((await put({ ...hook, url: 'https://other.example/mon', secret: 'whsec-new' })).status, 204);
  assert.deepEqual([stored('hook')?.url, stored('hook')?.secret], ['https://other.example/mon', 'whsec-new']);
  assert.equal((await put({ ...ntfy, url: 'https://other.example/team', secret: '' })).status, 204);
  assert.deepEqual([stored('team')?.url, stored('team')?.secret], ['https://other.example/team', null]);
});

test('channel URLs with a user name or password are refused, in the API and in mon.toml alike', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  for (const url of ['https://me:hunter22@ntfy.example/team', 'https://me@ntfy.example/team']) {
    const res = await s.call('write', 'POST', '/api/v1/channels', { ...ntfy, url });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.detail,
      "url: must not hold a user name or password; give the credential as the channel's secret",
    );
  }
  assert.equal(channelCount(s), 0);
  const file = loadConfigText(
    '[[alert]]\ntype = "webhook"\nurl = "https://me:hunter22@hooks.example.com/mon"\n',
    { env: {} },
  );
  assert.equal(
    file.ok ? '' : file.error,
    "alert[0].url: must not hold a user name or password; give the credential as the channel's secret",
  );
});

test('a channel mon.toml takes while a PUT or DELETE waits for the writer: 409', async (t) => {
  const s = await channelServer(mon);
  t.after(() => s.dispose());
  // The file takes the name after the request's arrival, before its writer job.
  const reloadBeforeNextJob = (name: string) =>
    beforeNextJob(s.server.deps.store.writer, () => {
      writeFileSync(
        s.configPath,
        `${mon}\n[[alert]]\nname = "${name}"\ntype = "ntfy"\nurl = "https://ntfy.example/${name}"\n`,
      );
      s.server.deps.config.reload();
    });
  reloadBeforeNextJob('late');
  const put = await s.call('write', 'PUT', '/api/v1/channels/late', { ...ntfy, name: 'late' });
  assert.equal(put.status, 409);
  assert.match(put.body.detail, /"late" is set in mon\.toml; change it there/);
  reloadBeforeNextJob('later');
  const removed = await s.call('admin', 'DELETE', '/api/v1/channels/later');
  assert.equal(removed.status, 409);
  assert.equal(channelCount(s), 0);
});
