import net from 'node:net';
import { parseHostPort } from '../protocol/targets.ts';
import { evaluate } from './assertions.ts';
import { guardedLookup, refusedHost } from './link-local.ts';
import type { Runner } from './run.ts';
import { down, networkDetail, resolveTarget, safe, timedOut } from './shared.ts';

/**
 * Opens a TCP connection and closes it at once; latency is the connect time (after name lookup). The
 * lookup refuses link-local addresses unless the check allows them.
 */
export const tcpRunner: Runner = safe(async (check, ctx) => {
  const resolved = resolveTarget(check, ctx);
  if ('outcome' in resolved) return resolved.outcome;
  const target = parseHostPort(resolved.target);
  if (!target) return down(`not a host:port target: ${check.target}`);
  const { signal } = ctx;
  if (signal.aborted) return down(timedOut(check));
  const refused = refusedHost(target.host, check.allowLinkLocal);
  if (refused) return down(refused.message);
  const result = await new Promise<{ latencyMs: number } | { error: unknown }>((resolve) => {
    let start = performance.now();
    const socket = net.connect({
      host: target.host,
      port: target.port,
      lookup: guardedLookup(check.allowLinkLocal, ctx.dnsServers),
    });
    const finish = (value: { latencyMs: number } | { error: unknown }) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(value);
    };
    const onAbort = () => finish({ error: signal.reason });
    signal.addEventListener('abort', onAbort);
    socket.once('lookup', () => {
      start = performance.now();
    });
    socket.once('connect', () => finish({ latencyMs: Math.round(performance.now() - start) }));
    socket.once('error', (error) => finish({ error }));
  });
  if ('error' in result) return down(signal.aborted ? timedOut(check) : networkDetail(result.error));
  const verdict = evaluate(check.expect, { latencyMs: result.latencyMs });
  return {
    status: verdict.status,
    latencyMs: result.latencyMs,
    detail: ['connected', ...verdict.failures].join('; '),
  };
});
