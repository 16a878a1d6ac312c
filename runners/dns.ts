import { Resolver } from 'node:dns/promises';
import { evaluate } from './assertions.ts';
import type { Runner } from './run.ts';
import { down, resolveTarget, safe, timedOut } from './shared.ts';

/** What DNS error codes mean, in words. */
const dnsErrors: Record<string, string> = {
  ENOTFOUND: 'name not found (NXDOMAIN)',
  ENODATA: 'no A or AAAA records',
  ESERVFAIL: 'DNS server failure (SERVFAIL)',
  EREFUSED: 'query refused by the DNS server (REFUSED)',
  ETIMEOUT: 'no answer from the DNS server',
  ECONNREFUSED: 'DNS server unreachable (connection refused)',
  EBADNAME: 'not a valid DNS name',
};
/** When the A and AAAA queries fail differently, the more telling error is reported. */
const errorOrder = ['ENOTFOUND', 'ESERVFAIL', 'EREFUSED', 'ECONNREFUSED', 'ETIMEOUT', 'EBADNAME', 'ENODATA'];

/**
 * Resolves the name's A and AAAA records (CNAME chains are followed) with the host's resolvers, or
 * ctx.dnsServers. The name must resolve to at least one address; the answers are the addresses and any
 * CNAME target, which `equals` and `bodyContains` look at.
 */
const MAX_CNAME_HOPS = 8;

export const dnsRunner: Runner = safe(async (check, ctx) => {
  const resolved = resolveTarget(check, ctx);
  if ('outcome' in resolved) return resolved.outcome;
  const name = resolved.target;
  const { signal } = ctx;
  if (signal.aborted) return down(timedOut(check));
  const resolver = new Resolver({ timeout: Math.max(100, Math.min(check.timeoutMs, 5000)), tries: 2 });
  if (ctx.dnsServers?.length) resolver.setServers(ctx.dnsServers);
  const cancel = () => resolver.cancel();
  signal.addEventListener('abort', cancel);
  const start = performance.now();
  let results: PromiseSettledResult<string[]>[];
  let latencyMs: number;
  const chain: string[] = [];
  try {
    results = await Promise.allSettled([
      resolver.resolveCname(name),
      resolver.resolve4(name),
      resolver.resolve6(name),
    ]);
    latencyMs = Math.round(performance.now() - start);
    // The whole CNAME chain, so that `equals` can name the canonical name (a few hops at most).
    let next = results[0]?.status === 'fulfilled' ? results[0].value[0] : undefined;
    while (next && !chain.includes(next) && chain.length < MAX_CNAME_HOPS && !signal.aborted) {
      chain.push(next);
      next = (await resolver.resolveCname(next).catch(() => [] as string[]))[0];
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  if (signal.aborted) return down(timedOut(check));
  const [, v4, v6] = results.map((r) => (r.status === 'fulfilled' ? r.value : []));
  const cname = chain;
  const addresses = [...v4!, ...v6!];
  if (addresses.length === 0) {
    const codes = results
      .slice(1)
      .map((r) => (r.status === 'rejected' ? String((r.reason as NodeJS.ErrnoException)?.code) : 'ENODATA'));
    const code = errorOrder.find((c) => codes.includes(c));
    const reason = results[1]?.status === 'rejected' ? (results[1].reason as Error).message : '';
    return down(code ? dnsErrors[code]! : `lookup failed: ${reason}`);
  }
  const answers = [...cname!, ...addresses];
  const verdict = evaluate(check.expect, { latencyMs, answers });
  const shown = answers.slice(0, 5).join(', ') + (answers.length > 5 ? ` (+${answers.length - 5} more)` : '');
  return { status: verdict.status, latencyMs, detail: [shown, ...verdict.failures].join('; ') };
});
