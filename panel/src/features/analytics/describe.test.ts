import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnalyticsTotals } from '../../../../protocol/analytics.ts';
import { defaultServiceName } from '../../../../protocol/analytics-constants.ts';
import { ApiError } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import {
  changeOf,
  countryNamer,
  errorWhere,
  formatVisitTime,
  formatVital,
  homePageCheck,
  listTotalText,
  omittedText,
  pageVitalsSince,
  sharePercent,
  siteErrors,
  snippetWithDnt,
  stepWords,
  valueText,
  valueTitle,
} from './describe.ts';

const totals = (t: Partial<AnalyticsTotals>): AnalyticsTotals => ({
  visitors: 0,
  views: 0,
  visits: 0,
  bounce: null,
  time: null,
  ...t,
});

test('the time of a visit reads m:ss, minutes going on past an hour', () => {
  assert.equal(formatVisitTime(null), '–');
  assert.equal(formatVisitTime(0), '0:00');
  assert.equal(formatVisitTime(42_400), '0:42');
  assert.equal(formatVisitTime(185_000), '3:05');
  assert.equal(formatVisitTime(59_600), '1:00');
  assert.equal(formatVisitTime(4_330_000), '72:10');
});

test('a total against the previous period: percent, bounce in points, more bounce is worse', () => {
  const now = totals({ visitors: 120, views: 300, visits: 150, bounce: 40, time: 60_000 });
  const before = totals({ visitors: 100, views: 400, visits: 150, bounce: 35.5, time: 0 });
  assert.deepEqual(changeOf('visitors', now, before), {
    text: '+20%',
    tone: 'better',
    words: '+20% against the previous period',
  });
  assert.equal(changeOf('views', now, before).text, '−25%');
  assert.equal(changeOf('views', now, before).tone, 'worse');
  assert.equal(changeOf('visits', now, before).text, 'no change');
  assert.equal(changeOf('visits', now, before).tone, 'same');
  assert.deepEqual(
    [changeOf('bounce', now, before).text, changeOf('bounce', now, before).tone],
    ['+4.5 pts', 'worse'],
  );
  const lessBounce = changeOf('bounce', totals({ bounce: 30 }), totals({ bounce: 35.5 }));
  assert.deepEqual([lessBounce.text, lessBounce.tone], ['−5.5 pts', 'better']);
  // Nothing before: new; nothing either side: no change; no visits either side: nothing to compare.
  assert.equal(changeOf('time', now, before).text, 'new');
  assert.equal(changeOf('views', totals({}), totals({})).text, 'no change');
  assert.equal(changeOf('bounce', now, totals({})).text, '–');
  assert.equal(changeOf('time', totals({}), before).text, '–');
});

test('values as people read them: countries by name, devices capitalised, direct visits', () => {
  const names = countryNamer('en');
  assert.equal(names('DE'), 'Germany');
  assert.equal(names('us'), 'United States');
  // Not a region code: shown as stored.
  assert.equal(names('not a code'), 'not a code');
  assert.equal(valueText('countries', 'FR', names), 'France');
  assert.equal(valueText('countries', '', names), 'Unknown');
  assert.equal(valueText('devices', 'mobile'), 'Mobile');
  assert.equal(valueText('referrers', '(direct)'), 'Direct');
  assert.equal(valueText('referrers', ''), 'Direct');
  assert.equal(valueText('referrers', 'news.ycombinator.com'), 'news.ycombinator.com');
  assert.equal(valueText('pages', '/pricing'), '/pricing');
  assert.equal(valueText('pages', '(other)'), 'Other values');
  assert.equal(valueTitle('pages', '/pricing'), '/pricing');
  assert.match(valueTitle('pages', '(other)'), /^Pages beyond the first 1.000 of an hour \(5.000 of a day\)/);
  assert.match(valueTitle('utmCampaigns', '(other)'), /^UTM campaigns beyond the first 250 of an hour/);
});

test('a list that is not exact counts its values as at least', () => {
  const rows = [{ value: '/', visitors: 1, views: 2 }];
  assert.equal(listTotalText({ rows, total: 1, exact: true }), '1');
  assert.match(listTotalText({ rows, total: 12_345, exact: false }), /^at least 12.345$/);
});

test('bars are shares of the whole, within 0 and 100', () => {
  assert.equal(sharePercent(25, 200), 12.5);
  assert.equal(sharePercent(5, 0), 0);
  // Visitors of a value can pass the range's visitors (one visitor on several days): the bar is full.
  assert.equal(sharePercent(300, 200), 100);
});

test('Web Vitals: milliseconds as latencies, CLS without a unit', () => {
  assert.equal(formatVital('lcp', 2480), '2.48 s');
  assert.equal(formatVital('inp', 180), '180 ms');
  assert.equal(formatVital('cls', 0.1234), '0.12');
});

test("an error's place: script:line:column, as much as the browser said", () => {
  assert.equal(
    errorWhere({ script: 'https://shop.example/app.js', line: 12, column: 7 }),
    'https://shop.example/app.js:12:7',
  );
  assert.equal(
    errorWhere({ script: 'https://shop.example/app.js', line: 12, column: null }),
    'https://shop.example/app.js:12',
  );
  assert.equal(
    errorWhere({ script: 'https://shop.example/app.js', line: null, column: null }),
    'https://shop.example/app.js',
  );
  assert.equal(errorWhere({ script: null, line: 3, column: 1 }), 'inline script:3');
  assert.equal(errorWhere({ script: null, line: null, column: null }), 'unknown script');
});

test('the snippet with data-dnt, the default service, the home page check', () => {
  const snippet = '<script defer src="https://mon.example/b.js" data-domain="shop.example.com"></script>';
  assert.equal(
    snippetWithDnt(snippet),
    '<script defer src="https://mon.example/b.js" data-domain="shop.example.com" data-dnt></script>',
  );
  assert.equal(defaultServiceName(' Shop.Example.com '), 'shop-example-com');
  assert.deepEqual(homePageCheck('Shop.Example.com', 'shop'), {
    name: 'shop.example.com',
    service: 'shop',
    kind: 'http',
    target: 'https://shop.example.com/',
    everyMs: 60_000,
  });
  // Checks and services share their names: a service named as the domain gives the check another name.
  assert.equal(homePageCheck('shop.example.com', 'shop.example.com').name, 'shop.example.com (https)');
});

test('refusals of POST /sites land at their field', () => {
  const sent = { service: 'shop', check: 'shop.example.com' };
  const problem = (status: number, detail: string) => new ApiError(status, 'refused', detail, null);
  assert.deepEqual(siteErrors(problem(422, 'domain: must be a host name such as example.com'), sent), {
    domain: 'must be a host name such as example.com',
  });
  assert.deepEqual(siteErrors(problem(422, 'check.target: must be a URL'), sent), { check: 'must be a URL' });
  assert.deepEqual(siteErrors(problem(422, "check.service: must be the site's service"), sent), {
    service: "must be the site's service",
  });
  assert.deepEqual(siteErrors(problem(409, 'the site shop.example.com exists'), sent), {
    domain: 'The site shop.example.com exists',
  });
  assert.deepEqual(siteErrors(problem(409, 'a check named "shop.example.com" exists'), sent), {
    check: 'A check named "shop.example.com" exists',
  });
  assert.deepEqual(
    siteErrors(
      problem(409, 'the service "shop" is defined in mon.toml; list the site in its sites there'),
      sent,
    ),
    { service: 'The service "shop" is defined in mon.toml; list the site in its sites there' },
  );
  assert.deepEqual(siteErrors(problem(409, 'a check named "shop" exists'), sent), {
    service: 'A check named "shop" exists',
  });
  assert.equal(siteErrors(problem(503, 'storage is busy'), sent), null);
  assert.equal(siteErrors(new Error('offline'), sent), null);
});

test('steps and what a read left out, in words', () => {
  assert.equal(stepWords(3_600_000), 'hour');
  assert.equal(stepWords(86_400_000), 'day');
  assert.equal(stepWords(6 * 3_600_000), '6 h');
  assert.deepEqual(omittedText(['vitals.pages', 'series.time']), [
    'per-page Web Vitals are not kept this far back',
    'series.time is not kept this far back',
  ]);
});

test('per-page Web Vitals that begin before the range say since when', () => {
  const midnight = Date.UTC(2026, 2, 10);
  assert.equal(pageVitalsSince(midnight, midnight), null);
  assert.equal(pageVitalsSince(midnight, null), null);
  const since = pageVitalsSince(midnight + 14 * 3_600_000, midnight);
  assert.equal(
    since,
    `Per page: page loads since ${formatTime(midnight)}, as single pages are kept by the UTC day.`,
  );
});
