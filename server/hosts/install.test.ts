import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { agentFileText } from '../../agent/build.ts';
import { readSettings } from '../../agent/settings.ts';
import { type Receiver, startReceiver } from '../http/fixtures/receiver.ts';
import { tempDir } from '../testing.ts';
import { DOWNLOAD_SCRIPT } from './fetch-agent.ts';
import { localizedIn, runDockerIn, sourced, TOKEN as token } from './fixtures/install-shell.ts';
import { AGENT_ENV, AGENT_NODE_FLAGS, envFileValue, installCommands, shellQuote } from './install.ts';

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

const localized = (snippet: string) => localizedIn(work.dir, snippet);
const runDocker = (docker: string, env: Record<string, string> = {}) => runDockerIn(work.dir, docker, env);

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
          body: agentFileText(
            'console.log("agent ran from " + process.env.MON_SERVER + " with " + process.execArgv.join(" "))',
          ).text,
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
  // Why, not only that it failed.
  assert.match(
    down.stderr,
    /^mon: cannot download the agent: connect ECONNREFUSED 127\.0\.0\.1:1; the agent file there stays as it was$/m,
  );
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
    /^MON_SERVER='https:\/\/mon\.example\.com' "\$node_bin" \/usr\/local\/lib\/mon-agent\/fetch-agent\.cjs \/usr\/local\/lib\/mon-agent\/mon-agent\.mjs$/m,
  );
  // Before each start, the unit downloads the agent again; its failure (no server) does not stop it.
  assert.ok(
    systemd.includes(
      '\nExecStartPre=-$node_bin /usr/local/lib/mon-agent/fetch-agent.cjs /usr/local/lib/mon-agent/mon-agent.mjs\n',
    ),
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
    writeFileSync(file, unit.replaceAll('$node_bin', process.execPath));
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
      // The download's own rule (fetch-agent.ts) says the words too.
      const shown = snippet.replace(DOWNLOAD_SCRIPT, '').replace(DOWNLOAD_SCRIPT.replaceAll('"', '\\"'), '');
      assert.doesNotMatch(shown, /plain HTTP|MON_ALLOW_HTTP[:=]/, serverUrl);
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
