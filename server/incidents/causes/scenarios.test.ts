import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY, HOUR, MINUTE } from '../../../protocol/durations.ts';
import { isoDate } from '../../../protocol/iso-time.ts';
import { hostScenarios } from './host-scenarios.ts';
import { fail, type Scenario, scenarioWorld, titles, up } from './scenario-world.ts';

/**
 * Constructed incidents of the service `shop` (scenario-world.ts: its dependencies, hosts and
 * neighbours), each against a real store: deploys and changes as rows, check results through the check
 * engine, host events as the agent's frames record them (host-scenarios.ts). Each case names the first
 * cause it expects (or none) and causes that must not appear; the suite reports top-1 precision.
 */

const scenarios: Scenario[] = [
  {
    name: 'a deploy, then the service fails',
    async build(w) {
      w.deploy({
        service: 'shop',
        version: 'v2.0.0',
        at: -3 * MINUTE,
        by: 'ana',
        url: 'https://ci.example/42',
      });
      await w.settle('shop home');
      await w.runs('shop home', [
        [-MINUTE, fail],
        [0, fail],
      ]);
    },
    first: 'Deploy of shop v2.0.0',
    more(causes, start) {
      const [top] = causes;
      assert.equal(top!.score, 0.8);
      assert.deepEqual(
        top!.factors.map((f) => [f.name, f.value]),
        [
          ['time', 1],
          ['relation', 1],
          ['kind', 0.8],
          ['counter', 1],
        ],
      );
      assert.deepEqual(top!.evidence, [
        { what: 'shop v2.0.0 deployed', ts: start - 3 * MINUTE, by: 'ana', url: 'https://ci.example/42' },
      ]);
      assert.equal(causes.length, 1, "the service's own failing check is impact, not a cause");
    },
  },
  {
    name: 'a failing dependency against an unrelated deploy of another service',
    async build(w) {
      w.deploy({ service: 'blog', version: 'b-17', at: -2 * MINUTE });
      await w.settle('api health');
      await w.runs('api health', [
        [-5 * MINUTE, fail],
        [-4 * MINUTE, fail],
      ]);
    },
    first: 'Dependency api went down',
    absent: [/blog/],
    more([top]) {
      assert.equal(top!.factors.find((f) => f.name === 'relation')!.why, 'shop depends on api');
      assert.equal(top!.score, 0.7);
      assert.match(top!.evidence[0]!.what, /^api health went down: 503/);
    },
  },
  {
    name: "another service's deploy and change are no cause",
    async build(w) {
      w.deploy({ service: 'blog', version: 'b-18', at: -MINUTE });
      w.change({ what: 'blog theme', at: -MINUTE, service: 'blog', host: 'web2' });
    },
    first: null,
  },
  {
    name: 'a change bound to nothing',
    async build(w) {
      w.change({ what: 'DNS TTL lowered to 60 s', at: -10 * MINUTE });
    },
    first: 'Change: DNS TTL lowered to 60 s',
    more([top]) {
      // 0.891 (10 min) × 0.4 (bound to nothing) × 0.6 (a change)
      assert.equal(top!.score, 0.214);
    },
  },
  {
    name: 'an expired certificate, with an older deploy of the service below it',
    async build(w) {
      w.deploy({ service: 'shop', version: 'v2.1.0', at: -50 * MINUTE });
      await w.settle('shop home');
      const expired = { ...fail, detail: 'certificate has expired' };
      const expiry = { kind: 'certificate' as const, expires: w.start - 90 * 1000 };
      await w.runs('shop home', [
        [-MINUTE, { ...expired, expiry }],
        [0, { ...expired, expiry }],
      ]);
    },
    first: 'Certificate of shop home expired',
    more(causes) {
      assert.deepEqual(titles(causes), ['Certificate of shop home expired', 'Deploy of shop v2.1.0']);
      assert.equal(causes[0]!.score, 1);
    },
  },
  {
    name: 'a domain registration within 7 days of expiry fails its check',
    async build(w) {
      const expiry = { kind: 'domain' as const, expires: w.start + 6.5 * DAY };
      // Seen expiring 30 days ahead (degraded), down from 7 days ahead: domain checks run every 6 hours.
      await w.runs('shop domain', [
        [
          -23.5 * DAY,
          { status: 'degraded', latencyMs: 90, detail: 'registration expires in 30 days', expiry },
        ],
        [-6 * HOUR, { status: 'down', latencyMs: 90, detail: 'registration expires in 6 days', expiry }],
        [0, { status: 'down', latencyMs: 90, detail: 'registration expires in 6 days', expiry }],
      ]);
    },
    first: 'Domain registration of shop domain expires',
    more([top], start) {
      assert.equal(top!.score, 1);
      assert.equal(top!.title, `Domain registration of shop domain expires ${isoDate(start + 6.5 * DAY)}`);
    },
  },
  {
    name: 'two deploys: the closer one first, the one it replaced below',
    async build(w) {
      w.deploy({ service: 'shop', version: 'v3', at: -40 * MINUTE });
      w.deploy({ service: 'shop', version: 'v4', at: -8 * MINUTE });
    },
    first: 'Deploy of shop v4',
    more(causes) {
      assert.deepEqual(titles(causes), ['Deploy of shop v4', 'Deploy of shop v3']);
      assert.deepEqual(causes[1]!.counter, ['replaced by v4 8 min before the start']);
      assert.equal(causes[1]!.factors.find((f) => f.name === 'counter')!.value, 0.5);
    },
  },
  {
    name: 'a deploy or change after the start is no cause',
    async build(w) {
      w.deploy({ service: 'shop', version: 'v5', at: MINUTE });
      w.change({ what: 'rollback of v5', at: 2 * MINUTE, service: 'shop' });
    },
    first: null,
  },
  {
    name: 'a deploy days before is no cause',
    async build(w) {
      w.deploy({ service: 'shop', version: 'v1', at: -3 * DAY });
      w.deploy({ service: 'shop', version: 'v1.1', at: -4 * HOUR });
    },
    first: null,
  },
  {
    name: 'a push ranks below the deploy it led to',
    async build(w) {
      w.change({ what: 'fix checkout (a1b2c3d)', at: -12 * MINUTE, kind: 'push', service: 'shop' });
      w.deploy({ service: 'shop', version: 'a1b2c3d', at: -4 * MINUTE });
    },
    first: 'Deploy of shop a1b2c3d',
    more(causes) {
      assert.deepEqual(titles(causes), ['Deploy of shop a1b2c3d', 'Push: fix checkout (a1b2c3d)']);
    },
  },
  {
    name: "a change of the service's host",
    async build(w) {
      w.change({ what: 'kernel upgrade', at: -6 * MINUTE, host: 'web1' });
      w.change({ what: 'kernel upgrade on web2', at: -6 * MINUTE, host: 'web2' });
    },
    first: 'Change: kernel upgrade',
    absent: [/web2/],
    more([top]) {
      assert.equal(top!.factors.find((f) => f.name === 'relation')!.why, 'on web1, a host of shop');
    },
  },
  {
    name: "a dependency's deploy",
    async build(w) {
      w.deploy({ service: 'api', version: 'api-9', at: -5 * MINUTE });
    },
    first: 'Deploy of api api-9',
    more([top]) {
      assert.equal(top!.score, 0.56);
    },
  },
  {
    name: 'a dependency of a dependency that went down',
    async build(w) {
      await w.settle('db port');
      await w.runs('db port', [
        [-4 * MINUTE, { ...fail, detail: 'connection refused' }],
        [-3 * MINUTE, { ...fail, detail: 'connection refused' }],
      ]);
    },
    first: 'Dependency db went down',
    more([top]) {
      assert.equal(top!.factors.find((f) => f.name === 'relation')!.why, 'shop depends on db');
    },
  },
  {
    name: 'counter-evidence: the version ran on another service for hours without failing',
    async build(w) {
      w.deploy({ service: 'shop-eu', version: 'v8', at: -3 * HOUR });
      w.deploy({ service: 'shop', version: 'v8', at: -10 * MINUTE });
      w.change({ what: 'firewall rules', at: -10 * MINUTE, host: 'web1' });
      await w.settle('shop-eu home');
    },
    first: 'Change: firewall rules',
    more(causes) {
      const deploy = causes.find((c) => c.title === 'Deploy of shop v8');
      assert.ok(deploy, 'the deploy is still listed, lower');
      assert.deepEqual(deploy.counter, ['v8 ran on shop-eu for 3 h before the start without going down']);
      // 0.891 × 1 × 0.8 × 0.5, below the host change's 0.891 × 0.8 × 0.6
      assert.equal(deploy.score, 0.356);
    },
  },
  {
    name: 'a dependency that came back before the start ranks below the deploy of the service',
    async build(w) {
      w.deploy({ service: 'shop', version: 'v9', at: -15 * MINUTE });
      await w.settle('api health');
      await w.runs('api health', [
        [-21 * MINUTE, fail],
        [-20 * MINUTE, fail],
        [-19 * MINUTE, up],
        [-18 * MINUTE, up],
        [-17 * MINUTE, up],
        [-16 * MINUTE, up],
      ]);
    },
    first: 'Deploy of shop v9',
    more(causes) {
      const dependency = causes.find((c) => c.kind === 'dependency');
      assert.ok(dependency);
      assert.match(dependency.counter[0]!, /^api came back \d+ min before the start$/);
    },
  },
  {
    name: "the service's own slow and failing checks are impact, never a cause",
    async build(w) {
      await w.settle('shop home');
      await w.runs('shop home', [
        [-3 * MINUTE, { status: 'degraded', latencyMs: 9000, detail: 'slow answer' }],
        [-2 * MINUTE, fail],
        [-MINUTE, fail],
        [0, fail],
      ]);
    },
    first: null,
  },
  {
    name: 'nothing happened at all',
    async build() {},
    first: null,
  },
];

test('likely causes: the scenario suite, with top-1 precision', async (t) => {
  const world = await scenarioWorld();
  t.after(() => world.dispose());
  let hits = 0;
  const suite = [...scenarios, ...hostScenarios];
  for (const scenario of suite) {
    const { start, causes } = await world.incident(scenario.build, scenario.scope);
    const top = causes[0]?.title ?? null;
    if (scenario.first === null ? top === null : top?.startsWith(scenario.first)) hits++;
    await t.test(scenario.name, () => {
      if (scenario.first === null) assert.deepEqual(titles(causes), [], 'no likely cause found');
      else assert.ok(top?.startsWith(scenario.first), `first cause: ${top}`);
      for (const wrong of scenario.absent ?? [])
        assert.ok(!causes.some((c) => wrong.test(c.title)), `no cause like ${wrong}: ${titles(causes)}`);
      scenario.more?.(causes, start);
      for (const cause of causes) {
        const product = cause.factors.reduce((p, f) => p * f.value, 1);
        assert.equal(
          cause.score,
          Math.round(product * 1000) / 1000,
          'the score is the product of its factors',
        );
      }
    });
  }
  const precision = `top-1 precision: ${hits}/${suite.length} (${Math.round((100 * hits) / suite.length)}%)`;
  t.diagnostic(precision);
  console.log(`likely causes, ${precision}`);
  assert.ok(suite.length >= 12);
});
