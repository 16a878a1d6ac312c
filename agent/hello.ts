import os from 'node:os';
import { join } from 'node:path';
import type { HelloFrame } from '../protocol/agent.ts';
import { AGENT_PROTOCOL, agentCapabilities } from '../protocol/agent-constants.ts';
import { readText } from './collectors/files.ts';

/**
 * The `hello` frame: the agent's version, protocol and capabilities, and facts about the host read
 * through the host root where it has them (hostname, OS, kernel, cores), else from what Node sees.
 */
export async function helloFrame(root: string, ts: number, agentVersion: string): Promise<HelloFrame> {
  const read = (path: string) => readText(join(root, path));
  const [hostname, osRelease, kernel, stat] = await Promise.all([
    read('proc/sys/kernel/hostname'),
    read('etc/os-release'),
    read('proc/sys/kernel/osrelease'),
    read('proc/stat'),
  ]);
  const cores = stat?.match(/^cpu\d+ /gm)?.length ?? 0;
  return {
    kind: 'hello',
    ts,
    agentVersion: agentVersion.slice(0, 64),
    protocol: AGENT_PROTOCOL,
    capabilities: [...agentCapabilities],
    hostname: (hostname?.trim() || os.hostname()).slice(0, 256),
    os: (prettyName(osRelease) ?? `${os.type()} ${os.release()}`).slice(0, 256),
    kernel: (kernel?.trim() || os.release()).slice(0, 256),
    arch: os.machine().slice(0, 64),
    cores: cores > 0 ? cores : os.availableParallelism(),
  };
}

/** PRETTY_NAME of os-release (quoted or not), or null. */
export function prettyName(osRelease: string | null): string | null {
  const match = osRelease ? /^PRETTY_NAME=(.*)$/m.exec(osRelease) : null;
  if (!match) return null;
  const value = match[1]!
    .trim()
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim();
  return value || null;
}
