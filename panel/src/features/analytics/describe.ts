import type {
  AnalyticsList,
  AnalyticsRows,
  AnalyticsTotals,
  ErrorGroupRead,
  VitalName,
  VitalRating,
} from '../../../../protocol/analytics.ts';
import { listValuesKept, OTHER_VALUE } from '../../../../protocol/analytics-constants.ts';
import type { CheckBody } from '../../../../protocol/check.ts';
import { ApiError } from '../../lib/api.ts';
import type { FieldErrors } from '../../lib/form.ts';
import { formatDuration, formatLatency, formatTime } from '../../lib/format.ts';

/** The analytics page's words and figures, pure: node tests them. */

/** The lists in the order the page shows them, with their titles and the word of their values. */
export const listTitles: Record<AnalyticsList, { title: string; value: string }> = {
  pages: { title: 'Pages', value: 'Page' },
  referrers: { title: 'Referrers', value: 'Referrer' },
  countries: { title: 'Countries', value: 'Country' },
  devices: { title: 'Devices', value: 'Device' },
  browsers: { title: 'Browsers', value: 'Browser' },
  operatingSystems: { title: 'Operating systems', value: 'Operating system' },
  utmSources: { title: 'UTM sources', value: 'utm_source' },
  utmMediums: { title: 'UTM mediums', value: 'utm_medium' },
  utmCampaigns: { title: 'UTM campaigns', value: 'utm_campaign' },
};

/** Pages rank by views, the other lists by visitors (SPEC): the bar and the first figure follow that. */
export const rankedBy = (list: AnalyticsList): 'views' | 'visitors' =>
  list === 'pages' ? 'views' : 'visitors';

/**
 * A value of a list as people read it: a country's name, a device capitalised, "Direct" for no
 * referrer, "Other values" for those beyond the most an hour or a day keeps.
 */
export function valueText(list: AnalyticsList, value: string, countryNames = countryNamer()): string {
  if (value === '') return list === 'referrers' ? 'Direct' : 'Unknown';
  if (value === OTHER_VALUE) return 'Other values';
  if (list === 'referrers' && value === '(direct)') return 'Direct';
  if (list === 'countries') return countryNames(value);
  if (list === 'devices') return value.charAt(0).toUpperCase() + value.slice(1);
  return value;
}

/** Country names in the browser's language from ISO 3166-1 alpha-2 codes; a code it cannot name stays a code. */
export function countryNamer(locale?: string): (code: string) => string {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames(locale, { type: 'region', fallback: 'code' });
  } catch {
    names = null;
  }
  return (code) => {
    try {
      return names?.of(code.toUpperCase()) ?? code;
    } catch {
      // Not a region code (a malformed value): show it as stored.
      return code;
    }
  };
}

/** A row's share of the list's figure, percent 0 to 100, for its bar. */
export function sharePercent(value: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.max(0, (value / whole) * 100));
}

/** The mean time of a visit as m:ss (minutes go on past 59); "–" without visits. */
export function formatVisitTime(ms: number | null): string {
  if (ms === null) return '–';
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Counts with thousands separators in the browser's language. */
const counts = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
export const formatCount = (n: number) => counts.format(n);

/**
 * How many values a list has: "1,204", or "at least 1,204" when the range had too many values to
 * count every one of every day (the list is not `exact`).
 */
export const listTotalText = (list: AnalyticsRows) =>
  list.exact ? formatCount(list.total) : `at least ${formatCount(list.total)}`;

/** What a list that is not exact leaves out, for its title. */
export const NOT_EXACT_NOTE =
  'With this many values over this range, some periods kept only their first ones: values beyond them are counted in “Other values”, missing, or short of some counts.';

/** The title of a value: the value itself, or what "Other values" counts. */
export function valueTitle(list: AnalyticsList, value: string): string {
  if (value !== OTHER_VALUE) return value;
  const kept = list === 'pages' ? 'pages' : 'others';
  const [hour, day] = [listValuesKept.h[kept], listValuesKept.d[kept]].map(formatCount);
  return `${listTitles[list].title} beyond the first ${hour} of an hour (${day} of a day), counted together.`;
}

export type Change = {
  /** "+12%", "−3 pts", "new", "no change", or "–" when there is nothing to compare. */
  text: string;
  /** Whether the change is good news: more visitors, less bounce. `same` when it is neither. */
  tone: 'better' | 'worse' | 'same';
  /** The sentence for screen readers and the title. */
  words: string;
};

/**
 * A total against the previous period of the same length. Bounce changes in percentage points; the
 * others in percent of the previous value. Fewer visitors or more bounce is worse.
 */
export function changeOf(key: keyof AnalyticsTotals, now: AnalyticsTotals, before: AnalyticsTotals): Change {
  const a = now[key];
  const b = before[key];
  const lowerIsBetter = key === 'bounce';
  if (a === null || b === null)
    return { text: '–', tone: 'same', words: 'nothing to compare with the previous period' };
  const delta = a - b;
  const tone = (d: number): Change['tone'] =>
    d === 0 ? 'same' : d > 0 !== lowerIsBetter ? 'better' : 'worse';
  if (key === 'bounce') {
    const pts = Math.round(delta * 10) / 10;
    if (pts === 0) return { text: 'no change', tone: 'same', words: 'as in the previous period' };
    const text = `${pts > 0 ? '+' : '−'}${Math.abs(pts)} pts`;
    return { text, tone: tone(pts), words: `${text} against the previous period` };
  }
  if (b === 0) {
    return a === 0
      ? { text: 'no change', tone: 'same', words: 'none in the previous period either' }
      : { text: 'new', tone: tone(a), words: 'none in the previous period' };
  }
  const percent = Math.round((delta / b) * 100);
  if (percent === 0) return { text: 'no change', tone: 'same', words: 'about as in the previous period' };
  const text = `${percent > 0 ? '+' : '−'}${Math.abs(percent)}%`;
  return { text, tone: tone(percent), words: `${text} against the previous period` };
}

/** Web Vitals in the order of web.dev, with their names; CLS has no unit, the others are milliseconds. */
export const vitalWords: Record<VitalName, { short: string; name: string }> = {
  lcp: { short: 'LCP', name: 'Largest Contentful Paint' },
  inp: { short: 'INP', name: 'Interaction to Next Paint' },
  cls: { short: 'CLS', name: 'Cumulative Layout Shift' },
  fcp: { short: 'FCP', name: 'First Contentful Paint' },
  ttfb: { short: 'TTFB', name: 'Time to First Byte' },
};

export function formatVital(name: VitalName, value: number): string {
  return name === 'cls' ? value.toFixed(2) : formatLatency(value);
}

/** A rating as a word and a shape (as a status's), so that it does not rest on colour alone. */
export const ratingLook: Record<VitalRating, { label: string; shape: string }> = {
  good: { label: 'Good', shape: '●' },
  'needs-improvement': { label: 'Needs improvement', shape: '◆' },
  poor: { label: 'Poor', shape: '▼' },
};

/** Where an error was thrown: `script:line:column`, as much of it as the browser said. */
export function errorWhere(g: Pick<ErrorGroupRead, 'script' | 'line' | 'column'>): string {
  if (g.script === null) return g.line === null ? 'unknown script' : `inline script:${g.line}`;
  if (g.line === null) return g.script;
  return `${g.script}:${g.line}${g.column === null ? '' : `:${g.column}`}`;
}

/**
 * The snippet with `data-dnt`: browsers that send Do Not Track or Global Privacy Control are then not
 * counted at all.
 */
export function snippetWithDnt(snippet: string): string {
  return snippet.replace(/><\/script>\s*$/, ' data-dnt></script>');
}

/** The check "also check https://domain/ every minute" adds; named after the domain, never after the service. */
export function homePageCheck(domain: string, service: string): CheckBody {
  const host = domain.trim().toLowerCase();
  return {
    name: host === service ? `${host} (https)` : host,
    service,
    kind: 'http',
    target: `https://${host}/`,
    everyMs: 60_000,
  };
}

/**
 * A refusal of `POST /sites` at the field it concerns: a 422 names its path (the check's own fields
 * land at the check box); a 409 names the site, the service or the check by its words. Null: the
 * error belongs to the whole form.
 */
export function siteErrors(
  error: unknown,
  sent: { service: string; check: string | null },
): FieldErrors | null {
  if (!(error instanceof ApiError)) return null;
  const field = error.field();
  if (field) {
    const path = field.path === 'domain' || field.path === 'service' ? field.path : 'check';
    return { [path]: field.message };
  }
  if (error.status !== 409) return null;
  const detail = error.detail ?? '';
  if (/^the site /i.test(detail)) return { domain: error.text };
  if (sent.check !== null && detail.includes(`"${sent.check}"`)) return { check: error.text };
  if (detail.includes(`"${sent.service}"`)) return { service: error.text };
  return null;
}

/** A step of a series in words: "hour", "day", else its duration ("5 min"). */
export function stepWords(ms: number): string {
  if (ms === 3_600_000) return 'hour';
  if (ms === 86_400_000) return 'day';
  return formatDuration(ms);
}

/**
 * Single pages' Web Vitals are kept by the UTC day: when they begin before the range, say since when
 * (null when they cover the range exactly).
 */
export function pageVitalsSince(from: number, pagesFrom: number | null): string | null {
  if (pagesFrom === null || pagesFrom >= from) return null;
  return `Per page: page loads since ${formatTime(pagesFrom)}, as single pages are kept by the UTC day.`;
}

/** What the read left out because its data does not reach back over the whole range, in words. */
export function omittedText(omitted: readonly string[]): string[] {
  return omitted.map((name) => omittedWords[name] ?? `${name} is not kept this far back`);
}

const omittedWords: Record<string, string> = {
  'vitals.pages': 'per-page Web Vitals are not kept this far back',
  errors: 'JavaScript errors are kept only until not seen for 35 days',
};
