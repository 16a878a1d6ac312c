import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { agentFileText } from '../../agent/build.ts';
import { type Receiver, startReceiver } from '../http/fixtures/receiver.ts';
import { tempDir } from '../testing.ts';
import { runDockerIn, sourcedValue, TOKEN as token } from './fixtures/install-shell.ts';
import { installCommands, shellQuote } from './install.ts';

/**
 * The install commands run again on a host, as for a new token: they replace their own settings in
 * /etc/mon-agent/env and keep what the operator added there.
 */

const run = promisify(execFile);
const work = tempDir('mon-install-again-');
let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  work.remove();
});

/** Lines an operator adds to the settings file after the install, which running it again keeps. */
const added = [
  "HTTPS_PROXY='http://proxy.internal:3128'",
  '# the private CA, as the host sees it',
  'NODE_EXTRA_CA_CERTS=/etc/mon-agent/ca.pem',
  "DOCKER_HOST='unix:///run/podman/podman.sock'",
];
/** Settings lines that are the install's own, written by hand: replaced, not kept. */
const ownedByHand = ["  export MON_TOKEN='bth_by_hand'", "MON_SERVER = 'https://old.example.com'"];

/** The file after a second install with `newToken`: the added lines, in order, after the install's. */
function assertKept(envFile: string, newToken: string) {
  const lines = readFileSync(envFile, 'utf8').split('\n');
  assert.deepEqual(lines, ["MON_SERVER='https://mon.example.com'", `MON_TOKEN='${newToken}'`, ...added, '']);
  assert.equal(sourcedValue(envFile, 'MON_TOKEN'), newToken);
  assert.equal(sourcedValue(envFile, 'HTTPS_PROXY'), 'http://proxy.internal:3128');
  assert.equal(statSync(envFile).mode & 0o777, 0o600);
  assert.equal(existsSync(`${envFile}.new`), false);
}

const newToken = 'bth_bmV3dG9rZW5uZXd0b2tlbm5ld3Rva2VubmV3dG9rZW4';

test('running the systemd snippet again (a new token) replaces MON_SERVER and MON_TOKEN in the settings file and keeps the lines added to it; the agent restarts on the new token', async () => {
  receiver.answer = (request) =>
    request.path === '/agent/v1/agent.mjs'
      ? {
          status: 200,
          body: agentFileText('console.log("agent")').text,
          headers: { 'content-type': 'text/javascript' },
        }
      : { status: 404 };
  const root = join(work.dir, 'systemd-root');
  const bin = join(work.dir, 'systemd-bin');
  mkdirSync(bin, { recursive: true });
  // systemctl as the snippet uses it: a unit is active once enabled with --now; each call recorded.
  writeFileSync(
    join(bin, 'systemctl'),
    `#!/bin/sh
root=${shellQuote(root)}
echo "$*" >> "$root/systemctl-calls"
case "$1" in
  is-active) test -e "$root/active" ;;
  enable) touch "$root/active" ;;
esac
`,
  );
  chmodSync(join(bin, 'systemctl'), 0o755);
  const install = async (tokenNow: string) => {
    const snippet = installCommands({ serverUrl: receiver.url, token: tokenNow, hostName: 'web-1' })
      .systemd // Every path the snippet writes, under the test's directory.
      .replace(
        /\/(etc\/mon-agent|etc\/systemd\/system|usr\/local\/lib\/mon-agent|var\/lib\/mon-agent)\b/g,
        `${root}/$1`,
      )
      // The server is loopback here; the file reads as with the address of a real install.
      .replace(`MON_SERVER='${receiver.url}'\n`, "MON_SERVER='https://mon.example.com'\n");
    rmSync(join(root, 'systemctl-calls'), { force: true });
    // Not spawnSync: the receiver answering the download runs in this process.
    await run('/bin/sh', ['-c', snippet], {
      env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` },
    });
    return readFileSync(join(root, 'systemctl-calls'), 'utf8');
  };
  // A host has /etc/systemd/system; the snippet makes the rest.
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  const envFile = join(root, 'etc/mon-agent/env');
  assert.doesNotMatch(await install(token), /restart/);
  assert.equal(sourcedValue(envFile, 'MON_TOKEN'), token);
  // The operator adds a proxy, a CA, a socket; one line without its line break, as an editor may leave it.
  writeFileSync(
    envFile,
    `${readFileSync(envFile, 'utf8')}${ownedByHand[0]}\n${added.join('\n')}\n${ownedByHand[1]}`,
  );

  const calls = await install(newToken);
  assertKept(envFile, newToken);
  assert.match(calls, /^restart mon-agent\.service$/m, 'the running agent restarts and reads the new token');
  assert.ok(!readFileSync(envFile, 'utf8').includes(token), 'the old token is gone');
});

test('running the docker commands again keeps the lines added to the settings file: the new container reads them', () => {
  const first = runDockerIn(
    work.dir,
    installCommands({ serverUrl: 'https://mon.example.com', token, hostName: 'web-1' }).docker,
  );
  assert.equal(first.status, 0, first.stderr);
  writeFileSync(
    first.envFile,
    `${readFileSync(first.envFile, 'utf8')}${added.join('\n')}\n${ownedByHand.join('\n')}\n`,
  );
  const again = runDockerIn(
    work.dir,
    installCommands({ serverUrl: 'https://mon.example.com', token: newToken, hostName: 'web-1' }).docker,
    {},
    true,
  );
  assert.equal(again.status, 0, again.stderr);
  assertKept(again.envFile, newToken);
  assert.ok(again.words!.includes(`${again.envFile}:${again.envFile}:ro`), 'the container reads that file');
});
