import net from 'node:net';
import { evaluate } from '../assertions.ts';
import type { Runner } from '../run.ts';
import { down, networkDetail, resolveTarget, safe, timedOut } from './shared.ts';

/** Splits `host:port` and `[v6]:port`. */
export function parseHostPort(target: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/i.exec(target);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535) return null;
  return { host: m[1] ?? m[2]!, port };
}

/** Opens a TCP connection and closes it at once; latency is the connect time (after name lookup). */
export const tcpRunner: Runner = safe(async (check, ctx) => {
  const resolved = resolveTarget(check, ctx.env);
  if ('outcome' in resolved) return resolved.outcome;
  const target = parseHostPort(resolved.target);
  if (!target) return down(`not a host:port target: ${check.target}`);
  const { signal } = ctx;
  if (signal.aborted) return down(timedOut(check));
  const result = await new Promise<{ latencyMs: number } | { error: unknown }>((resolve) => {
    let start = performance.now();
    const socket = net.connect({ host: target.host, port: target.port });
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
