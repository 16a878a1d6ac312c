import { execFile } from 'node:child_process';
import { evaluate } from './assertions.ts';
import { addressToReach } from './link-local.ts';
import type { RunContext, Runner, RunOutcome } from './run.ts';
import { down, networkDetail, resolveTarget, safe, timedOut, worst } from './shared.ts';

/** Echo requests sent per run. */
export const PING_COUNT = 3;

export type PingSummary = { transmitted: number; received: number; avgMs: number | null };

/**
 * Reads the summary of iputils (or busybox) ping:
 *   3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
 *   rtt min/avg/max/mdev = 0.040/0.046/0.051/0.004 ms
 */
export function parsePing(output: string): PingSummary | null {
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(output);
  if (!counts) return null;
  const rtt = /(?:rtt|round-trip) min\/avg\/max(?:\/[a-z]+)? = [\d.]+\/([\d.]+)\//.exec(output);
  return {
    transmitted: Number(counts[1]),
    received: Number(counts[2]),
    avgMs: rtt ? Number(rtt[1]) : null,
  };
}

const notPermitted = (runBy: RunContext['runBy']) =>
  `ping is not permitted for the ${runBy} process: add its group to the kernel setting ` +
  'net.ipv4.ping_group_range (or give ping the cap_net_raw capability)';

const notInstalled = {
  server: 'ping is not installed on the server (Debian package iputils-ping)',
  agent:
    'ping is not installed where the agent runs (Debian package iputils-ping; Alpine, as in the Docker install: iputils)',
} satisfies Record<RunContext['runBy'], string>;

/**
 * Runs the system's `ping` (no root needed: unprivileged ICMP sockets). All replies: up; some missing:
 * degraded; none: down. Latency is the mean round trip. mon looks the name up itself and pings the
 * address, so that the address it checked (link-local ones are refused) is the one pinged.
 */
export const pingRunner: Runner = safe(async (check, ctx) => {
  const resolved = resolveTarget(check, ctx);
  if ('outcome' in resolved) return resolved.outcome;
  const { target } = resolved;
  if (!target || target.startsWith('-')) return down(`not a host name or address: ${check.target}`);
  const { signal } = ctx;
  if (signal.aborted) return down(timedOut(check));
  let address: string;
  try {
    address = await addressToReach(target, check.allowLinkLocal, ctx.dnsServers);
  } catch (error) {
    return down(signal.aborted ? timedOut(check) : networkDetail(error));
  }
  if (signal.aborted) return down(timedOut(check));
  // 0.2 s apart (the smallest interval ping allows without root), so a run takes well under a second when
  // hosts answer. ping's own deadline (-w) ends it with a summary just before the check's timeout.
  const deadline = Math.max(1, Math.floor((check.timeoutMs - 250) / 1000));
  const wait = ['-W', String(deadline), '-w', String(deadline)];
  const args = ['-n', '-i', '0.2', '-c', String(PING_COUNT), ...wait, address];
  const { code, stdout, stderr, error } = await run(args, signal, check.timeoutMs, ctx.env.PATH);
  if (signal.aborted) return down(timedOut(check));
  if (error?.code === 'ENOENT') return down(notInstalled[ctx.runBy]);
  if (/operation not permitted|permission denied|socket: /i.test(stderr))
    return down(notPermitted(ctx.runBy));
  const summary = parsePing(stdout);
  if (!summary) {
    const reason = lastLine(stderr) || lastLine(stdout) || `exit code ${code}`;
    return down(reason.replace(/^ping: /, ''));
  }
  return judge(summary, check.expect);
});

function judge(summary: PingSummary, expect: Parameters<typeof evaluate>[0]): RunOutcome {
  const { transmitted, received } = summary;
  const latencyMs = summary.avgMs === null || received === 0 ? null : Math.round(summary.avgMs * 100) / 100;
  if (received === 0) return down(`no replies (${transmitted} sent)`);
  const missing = transmitted - received;
  const loss: RunOutcome['status'] = missing > 0 ? 'degraded' : 'up';
  const verdict = evaluate(expect, { latencyMs });
  const head =
    missing > 0
      ? `${missing} of ${transmitted} replies missing`
      : `${received} of ${transmitted} replies, ${latencyMs} ms average`;
  return { status: worst(loss, verdict.status), latencyMs, detail: [head, ...verdict.failures].join('; ') };
}

function run(
  args: string[],
  signal: AbortSignal,
  timeoutMs: number,
  path: string | undefined,
): Promise<{ code: number | null; stdout: string; stderr: string; error: NodeJS.ErrnoException | null }> {
  return new Promise((resolve) => {
    execFile(
      'ping',
      args,
      {
        signal,
        timeout: timeoutMs + 1000,
        maxBuffer: 64 * 1024,
        // Untranslated output for the parser.
        env: { PATH: path ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' },
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const e = error as (NodeJS.ErrnoException & { code?: unknown }) | null;
        resolve({
          code: typeof e?.code === 'number' ? e.code : e ? null : 0,
          stdout: String(stdout),
          stderr: String(stderr),
          error: e && typeof e.code === 'string' ? e : null,
        });
      },
    );
  });
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? '';
}
