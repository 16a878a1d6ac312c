import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ChannelRead,
  type ChannelSettingsRead,
  channelSettingsRead,
} from '../../../../protocol/notify.ts';
import { bodyOfForm, emptyForm, formOfChannel, keepsStoredSecret, kindInfo, targetSummary } from './model.ts';

const read = (over: Partial<ChannelRead>, settings: Partial<ChannelSettingsRead> = {}): ChannelRead => ({
  name: 'x',
  kind: 'ntfy',
  managed: false,
  hasSecret: false,
  ...over,
  settings: channelSettingsRead(settings),
});

test('a new channel sends only its kind’s fields; an empty secret is null', () => {
  const form = { ...emptyForm('webhook'), name: ' hook ', url: ' https://h.example/x ', chatId: '42' };
  assert.deepEqual(bodyOfForm(form), {
    name: 'hook',
    kind: 'webhook',
    url: 'https://h.example/x',
    secret: null,
    allowPrivate: false,
  });
  const mail = {
    ...emptyForm('email'),
    name: 'mail',
    smtp: 'm:25',
    from: 'a@b.c',
    to: 'x@y.z, u@v.w\nq@r.s',
    tls: 'true' as const,
  };
  assert.deepEqual(bodyOfForm(mail), {
    name: 'mail',
    kind: 'email',
    secret: null,
    smtp: 'm:25',
    tls: true,
    username: null,
    from: 'a@b.c',
    to: ['x@y.z', 'u@v.w', 'q@r.s'],
    allowPrivate: false,
  });
  assert.equal(bodyOfForm({ ...mail, to: ' ' }).to, null);
  assert.equal(bodyOfForm({ ...mail, tls: '' }).tls, null);
});

test('editing: an empty secret keeps the stored one, "remove" sends "", a Slack URL left empty keeps it', () => {
  const ntfy = formOfChannel(
    read({ name: 'team', hasSecret: true }, { url: 'https://ntfy.example/team', urlHost: 'ntfy.example' }),
  );
  assert.equal(ntfy.url, 'https://ntfy.example/team');
  assert.equal(bodyOfForm(ntfy).secret, null);
  assert.equal(bodyOfForm({ ...ntfy, secret: 'new' }).secret, 'new');
  assert.equal(bodyOfForm({ ...ntfy, secret: 'new', removeSecret: true }).secret, '');
  const slack = formOfChannel(read({ name: 'chat', kind: 'slack' }, { urlHost: 'hooks.slack.com' }));
  assert.deepEqual(bodyOfForm(slack), { name: 'chat', kind: 'slack', url: null });
  const mail = formOfChannel(read({ kind: 'email' }, { smtp: 'm:465', tls: false, to: ['a@b.c', 'd@e.f'] }));
  assert.deepEqual([mail.tls, mail.to], ['false', 'a@b.c, d@e.f']);
  assert.equal(kindInfo.telegram.secretOptional, false);
});

test('a stored secret is kept for the same origin or SMTP server only, as the server keeps it', () => {
  const ntfy = read({ hasSecret: true }, { url: 'https://ntfy.example/team' });
  const form = formOfChannel(ntfy);
  assert.equal(keepsStoredSecret(ntfy, form), true);
  assert.equal(keepsStoredSecret(ntfy, { ...form, url: 'https://NTFY.example:443/other' }), true);
  assert.equal(keepsStoredSecret(ntfy, { ...form, url: 'https://elsewhere.example/team' }), false);
  assert.equal(keepsStoredSecret(ntfy, { ...form, url: 'http://ntfy.example/team' }), false);
  assert.equal(keepsStoredSecret(ntfy, { ...form, url: 'https://ntfy.exa' }), false);
  assert.equal(keepsStoredSecret(ntfy, { ...form, url: 'not a url yet' }), true);
  assert.equal(
    keepsStoredSecret({ ...ntfy, hasSecret: false }, { ...form, url: 'https://x.example/' }),
    true,
  );
  const mail = read({ kind: 'email', hasSecret: true }, { smtp: 'mail.example.com:587' });
  const mailForm = formOfChannel(mail);
  assert.equal(keepsStoredSecret(mail, { ...mailForm, smtp: ' MAIL.example.com:587 ' }), true);
  assert.equal(keepsStoredSecret(mail, { ...mailForm, smtp: 'mail.example.com:2525' }), false);
  assert.equal(keepsStoredSecret(mail, { ...mailForm, smtp: 'other.example:587' }), false);
  const tg = read({ kind: 'telegram', hasSecret: true }, { chatId: '-100' });
  assert.equal(keepsStoredSecret(tg, { ...formOfChannel(tg), chatId: '-200' }), true);
});

test('the list says where each channel sends', () => {
  assert.equal(
    targetSummary(read({}, { url: 'https://ntfy.sh/ops-alerts', urlHost: 'ntfy.sh' })),
    'ops-alerts on ntfy.sh',
  );
  assert.equal(
    targetSummary(read({ kind: 'slack' }, { urlHost: 'hooks.slack.com' })),
    'webhook on hooks.slack.com',
  );
  assert.equal(targetSummary(read({ kind: 'telegram' }, { chatId: '-100' })), 'chat -100');
  assert.equal(
    targetSummary(read({ kind: 'email' }, { smtp: 'mail:587', to: ['a@b.c', 'd@e.f'] })),
    'a@b.c, d@e.f via mail:587',
  );
  assert.equal(targetSummary({ ...read({}), settings: null }), '');
});
