import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { readSettings } from '../../agent/settings.ts';
import { type Receiver, startReceiver } from '../http/fixtures/receiver.ts';
import { tempDir } from '../testing.ts';
import { AGENT_ENV, AGENT_NODE_FLAGS, envFileValue, installCommands, shellQuote } from './install.ts';

const token = 'bth_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
/**
 * An address from configuration that tries the ways out of a shell word that survive URL serialization
 * (a quote, a command substitution, separators), each creating a file if it ever ran.
 */
const pwned = `/tmp/mon-pwned-${process.pid}`;
const hostile = `https://mon.example.com/a'b$(touch$IFS${pwned});touch$IFS${pwned}&c|d"e\\f/`;
const hostileHref = new URL(hostile).href.replace(/\/+$/, '');

const run = promisify(execFile);
const work = tempDir('mon-install-');
let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  work.remove();
});

/** The snippet with its /etc/mon-agent in the test's directory: run here, it writes nothing outside. */
function localized(snippet: string): { snippet: string; envFile: string } {
  const etc = join(work.dir, 'etc-mon-agent');
  return { snippet: snippet.replaceAll('/etc/mon-agent', etc), envFile: join(etc, 'env') };
}

/**
 * Runs a docker snippet with sh and a `docker` on the PATH that starts nothing: it records each call's
 * arguments (the words the shell hands to docker) and keeps the one thing the snippet depends on, whether
 * a container named mon-agent exists, as dockerd would: `run --name` fails on a name in use, `rm -f`
 * removes it (and no volume: named volumes outlive their containers). `words` are the last call's.
 */
function runDocker(docker: string, env: Record<string, string> = {}, keep = false) {
  const bin = join(work.dir, 'bin');
  const calls = join(work.dir, 'docker-calls');
  const container = join(work.dir, 'docker-container');
  rmSync(calls, { recursive: true, force: true });
  mkdirSync(calls, { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'docker'),
    `#!/bin/sh
calls=${shellQuote(calls)}; container=${shellQuote(container)}
printf '%s\\0' "$@" > "$calls/$(ls "$calls" | wc -l | tr -d ' ')"
case "$1" in
  rm) if [ -e "$container" ]; then rm "$container"; echo mon-agent; else echo 'Error response from daemon: No such container: mon-agent' >&2; exit 1; fi ;;
  run) if [ -e "$container" ]; then echo 'docker: Error response from daemon: Conflict. The container name "/mon-agent" is already in use' >&2; exit 125; fi
       touch "$container" ;;
esac
`,
  );
  chmodSync(join(bin, 'docker'), 0o755);
  const { snippet, envFile } = localized(docker);
  if (!keep) rmSync(envFile, { force: true });
  const run = spawnSync('/bin/sh', ['-c', snippet], {
    env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
    encoding: 'utf8',
  });
  const made = readdirSync(calls).sort((a, b) => Number(a) - Number(b));
  const words = made.map((name) => readFileSync(join(calls, name), 'utf8').split('\0').slice(0, -1));
  return {
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    calls: words,
    words: words.at(-1) ?? null,
    envFile,
  };
}

/** The settings file as sh reads it (the container sources it; systemd reads the same quoting). */
function sourced(envFile: string): Record<string, string> {
  const read = spawnSync(
    '/bin/sh',
    [
      '-c',
      `set -a; . ${shellQuote(envFile)}; printf '%s\\0%s\\0%s' "$MON_SERVER" "$MON_TOKEN" "\${MON_ALLOW_HTTP-unset}"`,
    ],
    { encoding: 'utf8', env: {} },
  );
  const [MON_SERVER, MON_TOKEN, MON_ALLOW_HTTP] = read.stdout.split('\0');
  return { MON_SERVER: MON_SERVER!, MON_TOKEN: MON_TOKEN!, MON_ALLOW_HTTP: MON_ALLOW_HTTP! };
}

test('the docker snippet: the token in a 0600 file the container reads, never on a command line; host network and PIDs, the root read-only with rslave, the socket, the spool', () => {
  const { docker } = installCommands({ serverUrl: 'https://mon.example.com/', token, hostName: 'web-1' });
  assert.match(docker, /^# mon agent in Docker for the host web-1: run as root on that host\.\nset -eu\n/);
  const { status, stderr, words, envFile } = runDocker(docker);
  assert.equal(status, 0, stderr);
  const script = words!.at(-1)!;
  assert.deepEqual(words!.slice(0, -1), [
    'run',
    '-d',
    '--name',
    'mon-agent',
    '--restart',
    'unless-stopped',
    '--network',
    'host',
    '--pid',
    'host',
    '-v',
    // rslave: a filesystem the host mounts after the agent started is seen (and measured) in /host.
    '/:/host:ro,rslave',
    '-v',
    '/var/run/docker.sock:/var/run/docker.sock:ro',
    '-v',
    `${envFile}:${envFile}:ro`,
    '-v',
    'mon-agent:/var/lib/mon-agent',
    '-e',
    'MON_HOST_ROOT=/host',
    // The agent's environment beyond its settings, the same in both installs and the bench.
    ...Object.entries(AGENT_ENV).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
    'node:24-alpine',
    'sh',
    '-c',
  ]);
  assert.ok(!words!.join(' ').includes(token), 'the token is in no word docker gets (ps, docker inspect)');
  assert.equal(statSync(envFile).mode & 0o777, 0o600);
  assert.equal(statSync(dirname(envFile)).mode & 0o777, 0o700);
  assert.deepEqual(sourced(envFile), {
    MON_SERVER: 'https://mon.example.com',
    MON_TOKEN: token,
    MON_ALLOW_HTTP: 'unset',
  });
  assert.equal(spawnSync('/bin/sh', ['-n', '-c', script]).status, 0, 'the container script is valid sh');
});

test('running the docker commands again (a new token) replaces the mon-agent container and keeps its volume, the spool', () => {
  const first = installCommands({ serverUrl: 'https://mon.example.com', token, hostName: 'web-1' });
  assert.match(
    first.docker,
    /^docker rm -f mon-agent >\/dev\/null 2>&1 \|\| true\ndocker run -d --name mon-agent /m,
  );
  const installed = runDocker(first.docker);
  assert.equal(installed.status, 0, installed.stderr);
  assert.deepEqual(
    installed.calls.map((call) => call.slice(0, 3)),
    [
      ['rm', '-f', 'mon-agent'],
      ['run', '-d', '--name'],
    ],
    'with no container yet, the rm fails quietly and the run goes on',
  );
  assert.equal(installed.stdout + installed.stderr, '');

  const newToken = 'bth_bmV3dG9rZW5uZXd0b2tlbm5ld3Rva2VubmV3dG9rZW4';
  const again = runDocker(
    installCommands({ serverUrl: 'https://mon.example.com', token: newToken, hostName: 'web-1' }).docker,
  );
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(again.calls[0], ['rm', '-f', 'mon-agent'], 'only the container: no -v, no volume rm');
  assert.equal(again.calls.length, 2);
  assert.ok(
    again.words!.includes('mon-agent:/var/lib/mon-agent'),
    'the new container mounts the same volume',
  );
  assert.equal(sourced(again.envFile).MON_TOKEN, newToken);
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

/** The settings file as sh reads it, one variable. */
const sourcedValue = (envFile: string, name: string) =>
  spawnSync('/bin/sh', ['-c', `set -a; . ${shellQuote(envFile)}; printf %s "\${${name}-unset}"`], {
    encoding: 'utf8',
    env: {},
  }).stdout;

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
      ? { status: 200, body: 'console.log("agent")', headers: { 'content-type': 'text/javascript' } }
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
  const first = runDocker(
    installCommands({ serverUrl: 'https://mon.example.com', token, hostName: 'web-1' }).docker,
  );
  assert.equal(first.status, 0, first.stderr);
  writeFileSync(
    first.envFile,
    `${readFileSync(first.envFile, 'utf8')}${added.join('\n')}\n${ownedByHand.join('\n')}\n`,
  );
  const again = runDocker(
    installCommands({ serverUrl: 'https://mon.example.com', token: newToken, hostName: 'web-1' }).docker,
    {},
    true,
  );
  assert.equal(again.status, 0, again.stderr);
  assertKept(again.envFile, newToken);
  assert.ok(again.words!.includes(`${again.envFile}:${again.envFile}:ro`), 'the container reads that file');
});

test('a hostile server address stays one value: nothing of it runs', () => {
  const { docker, systemd } = installCommands({ serverUrl: hostile, token, hostName: 'web-1' });
  assert.match(hostileHref, /'b\$\(touch\$IFS\/tmp\/mon-pwned-\d+\);touch/);
  const { status, stderr, envFile } = runDocker(docker);
  assert.equal(status, 0, stderr);
  assert.deepEqual(sourced(envFile), { MON_SERVER: hostileHref, MON_TOKEN: token, MON_ALLOW_HTTP: 'unset' });
  assert.equal(existsSync(pwned), false);

  // The settings file of the systemd install reads back exactly (shell and systemd quoting agree).
  const env = /<<'MON_ENV'\n([\s\S]*?)\nMON_ENV\n/.exec(systemd)?.[1];
  assert.ok(env);
  writeFileSync(envFile, `${env}\n`);
  assert.deepEqual(sourced(envFile), { MON_SERVER: hostileHref, MON_TOKEN: token, MON_ALLOW_HTTP: 'unset' });
  assert.equal(existsSync(pwned), false);
  assert.equal(spawnSync('/bin/sh', ['-n', '-c', systemd]).status, 0);
});

test('the container script reads the settings file, downloads the agent into the volume and runs it; without the server it runs the last copy', async () => {
  receiver.answer = (request) =>
    request.path === '/mon/agent/v1/agent.mjs'
      ? {
          status: 200,
          body: 'console.log("agent ran from " + process.env.MON_SERVER + " with " + process.execArgv.join(" "))',
          headers: { 'content-type': 'text/javascript' },
        }
      : { status: 404 };
  const { docker } = installCommands({ serverUrl: `${receiver.url}/mon/`, token, hostName: 'web-1' });
  const { words, envFile } = runDocker(docker);
  const script = words!.at(-1)!;
  const node = dirname(process.execPath);
  // Not spawnSync: the receiver answering the download runs in this process.
  const start = async (server: string, state: string) => {
    mkdirSync(state, { recursive: true });
    // The settings file the container reads, here with the server of this start.
    writeFileSync(envFile, `MON_SERVER=${shellQuote(server)}\nMON_TOKEN=${shellQuote(token)}\n`);
    try {
      const { stdout, stderr } = await run('/bin/sh', ['-c', script], {
        env: { PATH: `${node}:/usr/bin:/bin`, MON_STATE_DIR: state },
        timeout: 20_000,
      });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const state = join(work.dir, 'state');
  const first = await start(`${receiver.url}/mon`, state);
  assert.equal(first.status, 0, first.stderr);
  const flags = AGENT_NODE_FLAGS.join(' ');
  assert.equal(first.stdout, `agent ran from ${receiver.url}/mon with ${flags}\n`);
  assert.ok(existsSync(join(state, 'mon-agent.mjs')));

  const down = await start('http://127.0.0.1:1', state);
  // Not only fetch's "fetch failed": why.
  assert.match(down.stderr, /mon: cannot download the agent: fetch failed \(bad port\)/);
  assert.equal(
    down.stdout,
    `agent ran from http://127.0.0.1:1 with ${flags}\n`,
    'the copy of the last start runs',
  );

  const fresh = join(work.dir, 'fresh');
  const none = await start(`${receiver.url}/elsewhere`, fresh);
  assert.notEqual(none.status, 0);
  assert.match(none.stderr, /cannot download the agent: HTTP 404 from/);
  assert.equal(existsSync(join(fresh, 'mon-agent.mjs')), false, 'no half file is left');
});

test('the systemd snippet: the settings 0600 with the token, the agent file, the unit with MON_STATE_DIR, enable --now', () => {
  const { systemd } = installCommands({ serverUrl: 'https://mon.example.com', token, hostName: 'web-1' });
  assert.equal(spawnSync('/bin/sh', ['-n', '-c', systemd]).status, 0, 'valid sh');
  assert.match(systemd, /^# mon agent for the host web-1: run as root/);
  assert.match(systemd, /^set -eu$/m);
  assert.match(systemd, /^umask 077$/m);
  assert.match(
    systemd,
    /^cat > \/etc\/mon-agent\/env\.new <<'MON_ENV'\nMON_SERVER='https:\/\/mon\.example\.com'\nMON_TOKEN='bth_[\w-]+'\nMON_ENV\n.*\nchmod 600 \/etc\/mon-agent\/env\.new\nmv -f \/etc\/mon-agent\/env\.new \/etc\/mon-agent\/env$/m,
  );
  assert.match(
    systemd,
    /^MON_SERVER='https:\/\/mon\.example\.com' "\$node_bin" -e '.*' \/usr\/local\/lib\/mon-agent\/mon-agent\.mjs$/m,
  );
  assert.match(systemd, /^EnvironmentFile=\/etc\/mon-agent\/env$/m);
  assert.match(systemd, /^Environment=MON_STATE_DIR=\/var\/lib\/mon-agent MALLOC_ARENA_MAX=1$/m);
  assert.ok(
    systemd.includes(
      `\nExecStart=$node_bin ${AGENT_NODE_FLAGS.join(' ')} /usr/local/lib/mon-agent/mon-agent.mjs\n`,
    ),
    'the unit runs the agent with its Node flags',
  );
  assert.match(systemd, /^systemctl enable --now mon-agent\.service$/m);
  // Restarted 10 s after it stops, except on exit code 2, a bad setting (agent/main.ts): trying again
  // every 10 s cannot mend it. An unusable state directory exits 1, and is tried again.
  const unit = systemd.slice(systemd.indexOf('[Unit]'), systemd.indexOf('MON_UNIT\nchmod'));
  assert.match(unit, /^\[Service\]\n(?:.*\n)*Restart=always\nRestartSec=10\nRestartPreventExitStatus=2\n/m);
  if (existsSync('/usr/bin/systemd-analyze')) {
    const file = join(work.dir, 'mon-agent.service');
    writeFileSync(file, unit.replace('$node_bin', process.execPath));
    const verified = spawnSync('/usr/bin/systemd-analyze', ['verify', file], { encoding: 'utf8' });
    assert.equal(verified.status, 0, verified.stderr);
    assert.equal(verified.stderr, '', 'systemd-analyze verify has nothing to say');
  }
  // A host name with a line break cannot end the comment and start a command.
  const odd = installCommands({
    serverUrl: 'https://mon.example.com',
    token,
    hostName: 'web\nrm -rf /',
  }).systemd;
  assert.match(odd, /^# mon agent for the host web\?rm -rf \/: run as root/);
});

test('quoting: one shell word, whatever the value', () => {
  for (const value of ["it's", '$(id)', '`id`', 'a b', '"q"', '\\', "'", '']) {
    const echoed = spawnSync('/bin/sh', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' });
    assert.equal(echoed.stdout, value);
    const sourced = spawnSync('/bin/sh', ['-c', `V=${envFileValue(value)}; printf %s "$V"`], {
      encoding: 'utf8',
    });
    assert.equal(sourced.stdout, value);
  }
});

test('plain HTTP to another machine: a warning first, and the snippets stop unless run with MON_ALLOW_HTTP=1, which the agent then gets', () => {
  const plain = installCommands({ serverUrl: 'http://mon.lan:8080', token, hostName: 'web-1' });
  for (const snippet of [plain.docker, plain.systemd]) {
    assert.match(
      snippet,
      /^# mon is served over plain HTTP: set \[server\] url to an https:\/\/ address in mon\.toml .* MON_ALLOW_HTTP=1/,
    );
  }
  const refused = runDocker(plain.docker);
  assert.equal(refused.status, 1);
  assert.match(
    refused.stderr,
    /^mon: http:\/\/mon\.lan:8080 is plain HTTP: the agent would be downloaded and its token sent unencrypted\. Set \[server\] url to an https:\/\/ address, or run this with MON_ALLOW_HTTP=1/,
  );
  assert.equal(refused.words, null, 'docker never ran');
  assert.equal(existsSync(refused.envFile), false, 'no token written');
  // The systemd snippet stops at the same place, before it downloads anything.
  const systemd = spawnSync('/bin/sh', ['-c', localized(plain.systemd).snippet], {
    encoding: 'utf8',
    env: {},
  });
  assert.equal(systemd.status, 1);
  assert.match(systemd.stderr, /is plain HTTP: the agent would be downloaded/);
  assert.equal(existsSync(refused.envFile), false);

  // Asked for explicitly: installed, and the agent is told so, or it would refuse to start.
  const allowed = runDocker(plain.docker, { MON_ALLOW_HTTP: '1' });
  assert.equal(allowed.status, 0, allowed.stderr);
  const settings = sourced(allowed.envFile);
  assert.deepEqual(settings, { MON_SERVER: 'http://mon.lan:8080', MON_TOKEN: token, MON_ALLOW_HTTP: '1' });
  assert.equal(readSettings(settings).server.href, 'http://mon.lan:8080/');

  // HTTPS, or plain HTTP to this machine: no warning, no guard, no MON_ALLOW_HTTP.
  for (const serverUrl of ['https://mon.example.com', 'http://127.0.0.1:8080', 'http://localhost:8080']) {
    const { docker, systemd } = installCommands({ serverUrl, token, hostName: 'web-1' });
    for (const snippet of [docker, systemd]) {
      assert.doesNotMatch(snippet, /plain HTTP|MON_ALLOW_HTTP[:=]/, serverUrl);
    }
  }
  // `*.localhost` is not this machine to the agent either (it asks DNS): warned.
  const named = installCommands({ serverUrl: 'http://mon.localhost:8080', token, hostName: 'web-1' });
  assert.match(named.docker, /^# mon is served over plain HTTP/);
});

test("a loopback address (mon's default, without [server] url): a first line says the commands work only on mon's own machine", () => {
  for (const serverUrl of ['http://127.0.0.1:8080', 'http://localhost:8080', 'https://[::1]:8443']) {
    const { docker, systemd } = installCommands({ serverUrl, token, hostName: 'web-1' });
    for (const snippet of [docker, systemd]) {
      assert.match(
        snippet,
        /^# mon's address here is \S+, the machine's own: these work only on the machine mon runs on\. For another host, set \[server\] url in mon\.toml/,
        serverUrl,
      );
    }
  }
  const remote = installCommands({ serverUrl: 'https://mon.example.com', token, hostName: 'web-1' });
  assert.doesNotMatch(remote.docker + remote.systemd, /machine's own/);
});
