import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { agentFileText } from '../../agent/build.ts';
import { isLoopback } from '../../agent/settings.ts';
import { makePki, type TestPki } from '../../runners/fixtures/certs.ts';
import { connectProxy } from '../http/fixtures/connect-proxy.ts';
import { tempDir } from '../testing.ts';
import { DOWNLOAD_SCRIPT, LOOPBACK_RULE } from './fetch-agent.ts';

/**
 * The installs' download of the agent (fetch-agent.ts), run as the systemd unit runs it (a file, the
 * settings in its environment) against real servers: it replaces the agent only with a whole agent
 * file, and reaches the server as the agent does.
 */

const run = promisify(execFile);
const work = tempDir('mon-fetch-agent-');
const script = join(work.dir, 'fetch-agent.cjs');
const dir = join(work.dir, 'lib');
const target = join(dir, 'mon-agent.mjs');
/** The agent there before each download. */
const OLD = agentFileText('console.log("old")\n').text;
/** An agent file of some size, whole. */
const NEW = agentFileText(`console.log("new")\n// ${'padding '.repeat(1_000)}\n`).text;
let pki: TestPki;
let otherPki: TestPki;
const open: { close(): void; closeAllConnections?(): void }[] = [];
before(() => {
  writeFileSync(script, DOWNLOAD_SCRIPT);
  mkdirSync(dir, { recursive: true });
  pki = makePki();
  otherPki = makePki();
});
after(() => {
  for (const server of open) {
    server.closeAllConnections?.();
    server.close();
  }
  pki.dispose();
  otherPki.dispose();
  work.remove();
});

/** Runs the download with only `env`, the old agent in place; what it said and the file after. */
async function download(
  env: Record<string, string>,
): Promise<{ status: number; stderr: string; file: string }> {
  writeFileSync(target, OLD);
  let status = 0;
  let stderr = '';
  try {
    ({ stderr } = await run(process.execPath, [script, target], { env, timeout: 40_000 }));
  } catch (error) {
    ({ code: status, stderr } = error as { code: number; stderr: string });
  }
  assert.deepEqual(readdirSync(dir), ['mon-agent.mjs'], 'no half file is left');
  return { status, stderr, file: readFileSync(target, 'utf8') };
}

async function listening<S extends net.Server>(server: S): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  open.push(server);
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A server that answers raw bytes: 200, no Content-Length, the body, then it closes. */
async function rawServer(body: Buffer): Promise<string> {
  return `http://${await listening(
    net.createServer((socket) => {
      socket.once('data', () => {
        socket.end(
          Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/javascript\r\n\r\n'), body]),
        );
      });
    }),
  )}`;
}

/** An HTTPS server with a leaf of `from`, answering every request with `answer`. */
async function tlsServer(from: TestPki, answer: (res: http.ServerResponse) => void): Promise<string> {
  return `https://${await listening(https.createServer(from.leaf(30), (_req, res) => answer(res)))}`;
}

const caFile = (from: TestPki, name: string) => {
  const path = join(work.dir, name);
  writeFileSync(path, from.caPem);
  return path;
};

test('the script sits in shell quotes as it is, and its loopback rule is the agent’s', () => {
  assert.doesNotMatch(DOWNLOAD_SCRIPT, /['$`]|\\\\|\\"/);
  const rule = runInNewContext(LOOPBACK_RULE, { require: createRequire(import.meta.url) }) as (
    host: string,
  ) => boolean;
  const hosts = ['localhost', 'LocalHost', '127.0.0.1', '127.255.0.1', '2130706433', '0x7f.1', '128.0.0.1'];
  hosts.push(
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:10.0.0.1]',
    '[::2]',
    '10.0.0.1',
    'mon.localhost',
    'example.com',
  );
  for (const host of hosts) {
    const { hostname } = new URL(`http://${host}:8080/`);
    assert.equal(rule(hostname), isLoopback(hostname), host);
  }
});

test('a body cut short, or one whose code is not what its first line names, keeps the agent there and says why', async () => {
  const whole = await download({ MON_SERVER: await rawServer(Buffer.from(NEW)) });
  assert.deepEqual(whole, { status: 0, stderr: '', file: NEW });

  // 200 without Content-Length, closed after 1,000 bytes: nothing tells the client it is cut short.
  const cut = await download({ MON_SERVER: await rawServer(Buffer.from(NEW).subarray(0, 1_000)) });
  assert.equal(cut.status, 1);
  assert.match(
    cut.stderr,
    /^mon: cannot download the agent: the 1000 bytes received are not the agent file whole \(cut short, or changed on the way\): their code does not have the hash its first lines name \(0\.1\.0\+[0-9a-f]{12}\); the agent file there stays as it was$/m,
  );
  assert.equal(cut.file, OLD);

  const changed = await download({ MON_SERVER: await rawServer(Buffer.from(NEW.replace('"new"', '"bad"'))) });
  assert.equal(changed.status, 1);
  assert.match(changed.stderr, /are not the agent file whole/);
  assert.equal(changed.file, OLD);

  const head = await download({ MON_SERVER: await rawServer(Buffer.from(NEW).subarray(0, 40)) });
  assert.match(head.stderr, /the answer ended after 40 bytes, within the first lines of the file/);
  assert.equal(head.file, OLD);
});

test('plain HTTP to another machine only with MON_ALLOW_HTTP=1, as the agent; no redirect followed', async () => {
  const refused = await download({ MON_SERVER: 'http://mon.invalid:8080' });
  assert.equal(refused.status, 1);
  assert.match(
    refused.stderr,
    /^mon: cannot download the agent: MON_SERVER is plain HTTP to mon\.invalid, which is not this machine: the agent, which runs as root, would cross the network unencrypted\. Use https:\/\/, or set MON_ALLOW_HTTP=1 if the network between them is trusted/,
  );
  const bad = await download({ MON_SERVER: 'http://mon.invalid:8080', MON_ALLOW_HTTP: 'yes' });
  assert.match(
    bad.stderr,
    /MON_ALLOW_HTTP must be 1 \(allow plain HTTP to a server that is not loopback\) or 0/,
  );
  // Allowed, it goes to the network (where the name is not found).
  const allowed = await download({ MON_SERVER: 'http://mon.invalid:8080', MON_ALLOW_HTTP: '1' });
  assert.match(allowed.stderr, /cannot download the agent: getaddrinfo ENOTFOUND mon\.invalid/);

  // An https server sending the download to http:// (the file would cross the network as it is).
  let plainRequests = 0;
  const plain = `http://${await listening(
    http.createServer((_req, res) => {
      plainRequests++;
      res.end(NEW);
    }),
  )}`;
  const redirecting = await tlsServer(pki, (res) => {
    res.writeHead(301, { location: `${plain}/agent/v1/agent.mjs` }).end();
  });
  const redirected = await download({ MON_SERVER: redirecting, MON_CA: caFile(pki, 'ca.pem') });
  assert.equal(redirected.status, 1);
  assert.equal(
    redirected.stderr,
    `mon: cannot download the agent: HTTP 301 from ${redirecting}/agent/v1/agent.mjs, a redirect to ${plain}/agent/v1/agent.mjs, not followed (nor by the agent): set MON_SERVER to the address of mon; the agent file there stays as it was\n`,
  );
  assert.equal(redirected.file, OLD);
  assert.equal(plainRequests, 0);
});

test('the roots of NODE_EXTRA_CA_CERTS and MON_CA together, as the agent trusts them', async () => {
  const serve = (res: http.ServerResponse) => res.writeHead(200).end(NEW);
  const byExtra = await tlsServer(pki, serve);
  const byMonCa = await tlsServer(otherPki, serve);
  const env = { NODE_EXTRA_CA_CERTS: caFile(pki, 'extra.pem'), MON_CA: caFile(otherPki, 'mon-ca.pem') };
  assert.deepEqual(await download({ ...env, MON_SERVER: byExtra }), { status: 0, stderr: '', file: NEW });
  assert.deepEqual(await download({ ...env, MON_SERVER: byMonCa }), { status: 0, stderr: '', file: NEW });
  const neither = await download({ MON_SERVER: byMonCa, NODE_EXTRA_CA_CERTS: env.NODE_EXTRA_CA_CERTS });
  assert.match(neither.stderr, /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  assert.equal(neither.file, OLD);
});

test('through HTTPS_PROXY, as a tunnel, with nothing else set', async (t) => {
  const server = await tlsServer(pki, (res) => res.writeHead(200).end(NEW));
  const proxy = await connectProxy();
  t.after(() => proxy.close());
  // A name only the proxy reaches: the download cannot have gone around it.
  const url = `https://localhost:${new URL(server).port}`;
  const through = await download({
    MON_SERVER: url,
    MON_CA: caFile(pki, 'ca.pem'),
    HTTPS_PROXY: proxy.url,
  });
  assert.deepEqual(through, { status: 0, stderr: '', file: NEW });
  assert.deepEqual(proxy.targets, [`localhost:${new URL(server).port}`]);
});
