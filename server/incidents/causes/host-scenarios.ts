import assert from 'node:assert/strict';
import { MINUTE } from '../../../protocol/durations.ts';
import { fail, type Scenario, titles } from './scenario-world.ts';

/**
 * Likely-cause scenarios of what agents saw on hosts (host_events), run with the others by
 * scenarios.test.ts: shop runs on web1; blog's web2 and api's app1 are not shop's hosts. The last ones
 * are incidents of a host's own (no service), opened by its alerts.
 */
export const hostScenarios: Scenario[] = [
  {
    name: "an OOM kill of the service's container 2 minutes before its check went down",
    async build(w) {
      w.deploy({ service: 'shop', version: 'v10', at: -40 * MINUTE });
      w.hostEvent({
        host: 'web1',
        kind: 'oom',
        subject: 'shop-web',
        service: 'shop',
        at: -2 * MINUTE,
        detail: 'killed for lack of memory',
      });
      w.hostEvent({
        host: 'web1',
        kind: 'restart',
        subject: 'shop-web',
        service: 'shop',
        at: -2 * MINUTE + 15_000,
        detail: 'restarted (exit code 137)',
      });
      w.hostEvent({
        host: 'web2',
        kind: 'threshold',
        subject: 'cpu',
        at: -3 * MINUTE,
        detail: 'CPU above 90% for 5 minutes (99%)',
      });
      await w.settle('shop home');
      await w.runs('shop home', [
        [-MINUTE, fail],
        [0, fail],
      ]);
    },
    first: 'shop-web on web1 killed for memory',
    absent: [/web2/, /CPU/],
    more(causes, start) {
      const [top] = causes;
      assert.equal(top!.kind, 'container');
      assert.equal(top!.score, 0.9);
      assert.deepEqual(top!.ref, { host: 'web1', service: 'shop' });
      assert.deepEqual(top!.evidence, [
        { what: 'shop-web on web1: killed for lack of memory', ts: start - 2 * MINUTE, by: null, url: null },
        { what: 'shop-web on web1: restarted (exit code 137)', ts: start - 105_000, by: null, url: null },
      ]);
      assert.equal(top!.factors.find((f) => f.name === 'kind')!.why, 'a container killed for lack of memory');
      assert.deepEqual(titles(causes), ['shop-web on web1 killed for memory', 'Deploy of shop v10']);
    },
  },
  {
    name: "a CPU threshold crossed on the service's host",
    async build(w) {
      w.hostEvent({
        host: 'web1',
        kind: 'threshold',
        subject: 'cpu',
        at: -10 * MINUTE,
        detail: 'CPU above 90% for 5 minutes (97%)',
      });
    },
    first: 'web1: CPU above 90% for 5 minutes (97%)',
    more([top]) {
      assert.equal(top!.kind, 'host');
      // 0.794 (10 minutes: 0.5 ^ (5 / 15)) × 0.8 (a host of shop) × 0.7 (a threshold)
      assert.equal(top!.score, 0.445);
      assert.equal(top!.factors.find((f) => f.name === 'relation')!.why, 'on web1, a host of shop');
    },
  },
  {
    name: "a unit failed on the service's host ranks above a neighbour container's restart; a dependency's host is not looked at",
    async build(w) {
      w.hostEvent({
        host: 'web1',
        kind: 'unit_failed',
        subject: 'nginx.service',
        at: -3 * MINUTE,
        detail: 'failed',
      });
      w.hostEvent({
        host: 'web1',
        kind: 'restart',
        subject: 'cron-runner',
        at: -MINUTE,
        detail: 'restarted',
      });
      w.hostEvent({
        host: 'app1',
        kind: 'unit_failed',
        subject: 'pgbouncer.service',
        at: -MINUTE,
        detail: 'failed',
      });
    },
    first: 'nginx.service on web1 failed',
    absent: [/app1/],
    more(causes) {
      assert.deepEqual(
        causes.map((c) => [c.title, c.kind, c.score]),
        [
          ['nginx.service on web1 failed', 'unit', 0.72],
          ['cron-runner on web1 restarted', 'container', 0.48],
        ],
      );
    },
  },
  {
    name: "the agent on the service's host went silent",
    async build(w) {
      w.hostEvent({
        host: 'web1',
        kind: 'silent',
        subject: 'agent',
        at: -MINUTE,
        detail: 'no frame for 60 s',
      });
    },
    first: 'The agent on web1 went silent',
    more([top]) {
      assert.equal(top!.kind, 'agent');
      assert.equal(top!.score, 0.64);
    },
  },
  {
    name: 'host events after the start, or more than 2 hours before it, are no cause',
    async build(w) {
      w.hostEvent({
        host: 'web1',
        kind: 'oom',
        subject: 'shop-web',
        service: 'shop',
        at: MINUTE,
        detail: 'oom',
      });
      w.hostEvent({
        host: 'web1',
        kind: 'restart',
        subject: 'shop-web',
        at: -150 * MINUTE,
        detail: 'restarted',
      });
    },
    first: null,
  },
  {
    name: "a host's CPU incident is not caused by its own CPU crossing: a container killed for memory on it is",
    scope: { services: [], hosts: ['web1'], alerts: [{ key: 'host:web1:cpu', host: 'web1' }] },
    async build(w) {
      // The crossing the incident's alert recorded (from when CPU went over), and an earlier one.
      w.hostEvent({
        host: 'web1',
        kind: 'threshold',
        subject: 'cpu',
        at: -5 * MINUTE,
        detail: 'CPU above 90% for 5 minutes (98%)',
      });
      w.hostEvent({
        host: 'web1',
        kind: 'threshold',
        subject: 'cpu',
        at: -90 * MINUTE,
        detail: 'CPU above 90% for 5 minutes (95%)',
      });
      w.hostEvent({
        host: 'web1',
        kind: 'oom',
        subject: 'shop-web',
        service: 'shop',
        at: -20 * MINUTE,
        detail: 'container killed: out of memory',
      });
      // Another host's CPU is no cause either: it is not the incident's host.
      w.hostEvent({
        host: 'web2',
        kind: 'threshold',
        subject: 'cpu',
        at: -4 * MINUTE,
        detail: 'CPU above 90% for 5 minutes (99%)',
      });
    },
    first: 'shop-web on web1 killed for memory',
    absent: [/CPU/],
  },
  {
    name: "a host's agent silent is not caused by its own silence: its memory crossing before it is",
    scope: { services: [], hosts: ['web1'], alerts: [{ key: 'agent:web1', host: 'web1' }] },
    async build(w) {
      w.hostEvent({ host: 'web1', kind: 'silent', subject: 'agent', at: 0, detail: 'no frame for 60 s' });
      w.hostEvent({
        host: 'web1',
        kind: 'threshold',
        subject: 'memory',
        at: -8 * MINUTE,
        detail: 'memory above 90% for 5 minutes (99%)',
      });
    },
    first: 'web1: memory above 90% for 5 minutes (99%)',
    absent: [/silent/],
    more(causes) {
      assert.deepEqual(titles(causes), ['web1: memory above 90% for 5 minutes (99%)']);
    },
  },
];
