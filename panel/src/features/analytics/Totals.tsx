import type { AnalyticsTotals } from '../../../../protocol/analytics.ts';
import { formatPercent } from '../../lib/format.ts';
import { changeOf, formatCount, formatVisitTime } from './describe.ts';

const figures: {
  key: keyof AnalyticsTotals;
  label: string;
  format: (v: number | null) => string;
  note: string;
}[] = [
  {
    key: 'visitors',
    label: 'Visitors',
    format: (v) => formatCount(v ?? 0),
    note: 'people, told apart without cookies',
  },
  {
    key: 'views',
    label: 'Page views',
    format: (v) => formatCount(v ?? 0),
    note: 'pages loaded or navigated to',
  },
  {
    key: 'visits',
    label: 'Visits',
    format: (v) => formatCount(v ?? 0),
    note: 'sessions: 30 idle minutes end one',
  },
  { key: 'bounce', label: 'Bounce rate', format: formatPercent, note: 'visits of one page, not engaged' },
  { key: 'time', label: 'Visit time', format: formatVisitTime, note: 'mean engaged time of a visit, m:ss' },
];

/** The range's totals, each with its change against the period of the same length just before. */
export function Totals({ totals, previous }: { totals: AnalyticsTotals; previous: AnalyticsTotals }) {
  return (
    <div className="stats analytics-totals" data-testid="totals">
      {figures.map((f) => {
        const change = changeOf(f.key, totals, previous);
        return (
          <div className="stat" key={f.key} data-total={f.key} title={f.note}>
            <div className="label">{f.label}</div>
            <div className="value">{f.format(totals[f.key])}</div>
            <div className="note">
              <span className="change" data-tone={change.tone} title={change.words} aria-hidden="true">
                {change.text}
              </span>
              <span className="sr-only">{change.words}</span> · was {f.format(previous[f.key])}
            </div>
          </div>
        );
      })}
    </div>
  );
}
