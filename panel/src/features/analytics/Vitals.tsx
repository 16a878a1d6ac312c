import type { AnalyticsRead, VitalName, VitalRead } from '../../../../protocol/analytics.ts';
import { vitalNames, vitalThresholds } from '../../../../protocol/analytics-constants.ts';
import { Table } from '../../components/Table.tsx';
import { formatCount, formatVital, pageVitalsSince, ratingLook, vitalWords } from './describe.ts';

type Props = AnalyticsRead['vitals'] & { from: number };

/**
 * Web Vitals at the 75th percentile of page loads, over every page and for the most viewed ones, each
 * rated good, needs improvement or poor by web.dev's thresholds.
 */
export function Vitals({ overall, pages, pagesFrom, from }: Props) {
  const measured = vitalNames.some((n) => overall[n] !== null);
  const since = pageVitalsSince(from, pagesFrom);
  return (
    <section className="card" aria-labelledby="vitals-title" data-testid="vitals">
      <div className="card-head">
        <h2 id="vitals-title">Web Vitals</h2>
        <span className="muted small">75th percentile of page loads, rated as web.dev rates them</span>
      </div>
      <div className="card-body">
        {measured ? (
          <div className="vitals">
            {vitalNames.map((name) => (
              <VitalTile key={name} name={name} vital={overall[name]} />
            ))}
          </div>
        ) : (
          <p className="empty">No page load measured in this range.</p>
        )}
      </div>
      {measured && pages && pages.length > 0 ? (
        <Table
          className="vitals-pages"
          testId="vitals-pages"
          head={
            <>
              <th>Page</th>
              {vitalNames.map((n) => (
                <th key={n} className="num">
                  <abbr title={vitalWords[n].name}>{vitalWords[n].short}</abbr>
                </th>
              ))}
            </>
          }
        >
          {pages.map((p) => (
            <tr key={p.page} data-page={p.page}>
              {/* Cut short on a phone, so that the five figures fit beside it: whole in its tooltip
                  and, as its text, in what a screen reader reads. */}
              <td className="mono vitals-page" title={p.page}>
                <span>{p.page}</span>
              </td>
              {vitalNames.map((n) => (
                <td key={n} className="num">
                  <VitalValue name={n} vital={p.vitals[n]} />
                </td>
              ))}
            </tr>
          ))}
        </Table>
      ) : null}
      {measured && pages && pages.length > 0 && since ? (
        <p className="card-body muted small" data-testid="vitals-pages-since">
          {since}
        </p>
      ) : null}
    </section>
  );
}

function VitalTile({ name, vital }: { name: VitalName; vital: VitalRead | null }) {
  const { good, poor } = vitalThresholds[name];
  return (
    <div className="stat vital" data-vital={name} data-rating={vital?.rating}>
      <div className="label">
        <abbr title={vitalWords[name].name}>{vitalWords[name].short}</abbr>
      </div>
      <div className="value">
        <VitalValue name={name} vital={vital} />
      </div>
      <div className="note">
        {vital ? `${ratingLook[vital.rating].label} · ${formatCount(vital.samples)} loads` : 'not measured'}
        <br />
        good ≤ {formatVital(name, good)}, poor &gt; {formatVital(name, poor)}
      </div>
    </div>
  );
}

/** A p75 in the colour of its rating, the rating also in words for those who do not see colours. */
function VitalValue({ name, vital }: { name: VitalName; vital: VitalRead | null }) {
  if (!vital) return <span className="muted">–</span>;
  return (
    <span className="vital-value" data-rating={vital.rating} title={ratingLook[vital.rating].label}>
      <span className="shape" aria-hidden="true">
        {ratingLook[vital.rating].shape}
      </span>{' '}
      {formatVital(name, vital.p75)}
      <span className="sr-only"> ({ratingLook[vital.rating].label})</span>
    </span>
  );
}
