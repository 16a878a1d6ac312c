import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Received, startReceiver } from '../http/fixtures/receiver.ts';
import { incidentServer } from '../incidents/testkit.ts';
import { all, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { within } from '../testing.ts';
import type { Embed } from './channels/discord.ts';
import { fileAlert } from './testkit.ts';

/**
 * The message a Discord channel edits, through the sender on a real server: the thread is the
 * message sent anew when the first was deleted, and a thread another kind of channel of the same name
 * left is not used.
 */

const token = 'hook-token-Zq81bVx0LmW3kT6yPd9fRs2NcJ4uHa7E';

/** A Discord webhook on loopback: posts messages (`wait=true` answers the id) and edits those it has. */
async function fakeDiscord() {
  const messages = new Map<string, Embed>();
  let next = 1_200_000_000_000_000_000n;
  const receiver = await startReceiver();
  receiver.answer = (r: Received) => {
    const embed = (r.json as { embeds: Embed[] }).embeds[0]!;
    const edit = /\/messages\/(\d+)$/.exec(r.path)?.[1];
    if (r.method === 'POST') {
      const id = String(next++);
      messages.set(id, embed);
      return { status: 200, body: { id } };
    }
    if (edit === undefined || !messages.has(edit)) {
      return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
    }
    messages.set(edit, embed);
    return { status: 200, body: { id: edit } };
  };
  return { ...receiver, messages, calls: () => receiver.received.map((r) => `${r.method} ${r.path}`) };
}

async function discordServer(t: { after: (fn: () => unknown) => void }) {
  const discord = await fakeDiscord();
  const hook = `/api/webhooks/1/${token}`;
  const kit = await incidentServer(
    [],
    { alerts: [fileAlert(0, 'chat', 'discord', { url: `${discord.url}${hook}` })] },
    { notify: { bases: { discord: discord.url } } },
  );
  t.after(async () => {
    await kit.server.dispose();
    discord.close();
  });
  const read = kit.server.deps.store.read;
  const states = () => all(read, 'SELECT state FROM outbox ORDER BY id', mapper({ state: text }));
  return {
    kit,
    discord,
    hook,
    /** Waits until `count` rows are sent. */
    sent: (count: number) =>
      within(5000, `${count} sent`, () => {
        const rows = states();
        return rows.length === count && rows.every((r) => r.state === 'sent');
      }),
    threads: () => all(read, 'SELECT kind, ref FROM notify_threads', mapper({ kind: text, ref: text })),
  };
}

test('the first Discord message deleted: the acknowledgement is posted anew, and the resolution edits that one', async (t) => {
  const { kit, discord, hook, sent, threads } = await discordServer(t);
  const check = await kit.check('home', 'shop');
  await kit.fail(check);
  await sent(1);
  const [first] = [...discord.messages.keys()];
  discord.messages.delete(first!);

  const [incident] = await kit.list();
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await sent(2);
  const [second] = [...discord.messages.keys()];
  assert.deepEqual(threads(), [{ kind: 'discord', ref: second }], 'the new message is the thread');

  await kit.recover(check);
  await sent(3);
  assert.deepEqual(discord.calls(), [
    `POST ${hook}`,
    `PATCH ${hook}/messages/${first}`,
    `POST ${hook}`,
    `PATCH ${hook}/messages/${second}`,
  ]);
  assert.equal(discord.messages.size, 1);
  assert.match(discord.messages.get(second!)!.title, /^Resolved/);
});

test('a thread left by a channel of another kind under the same name is not edited', async (t) => {
  const { kit, discord, hook, sent, threads } = await discordServer(t);
  await kit.fail(await kit.check('home', 'shop'));
  await sent(1);
  const [incident] = await kit.list();
  // As a Telegram channel named chat, replaced since by this Discord one, would have left it.
  await kit.server.deps.store.writer.run((db) =>
    statement(db, "UPDATE notify_threads SET kind = 'telegram', ref = '42' WHERE incident = ?").run(
      incident!.id,
    ),
  );
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await sent(2);
  assert.deepEqual(discord.calls(), [`POST ${hook}`, `POST ${hook}`], 'no edit of message 42');
  const [, second] = [...discord.messages.keys()];
  assert.deepEqual(threads(), [{ kind: 'discord', ref: second }]);
});
