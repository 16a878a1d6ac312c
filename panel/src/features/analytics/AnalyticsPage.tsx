import { useEffect, useState } from 'react';
import type { AnalyticsRead, SiteCreated } from '../../../../protocol/analytics.ts';
import { analyticsLists } from '../../../../protocol/analytics-constants.ts';
import { Loading, ReadError } from '../../components/Feedback.tsx';
import { RangePicker } from '../../components/RangePicker.tsx';
import { enc } from '../../lib/api.ts';
import { timesNote } from '../../lib/chart-time.ts';
import { closeAndFocus } from '../../lib/focus.ts';
import { fieldId } from '../../lib/form.ts';
import { formatTime } from '../../lib/format.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { AddSite } from './AddSite.tsx';
import { omittedText, rankedBy } from './describe.ts';
import { ErrorGroups } from './ErrorGroups.tsx';
import { type Range, ranges } from './keys.ts';
import { useAnalytics } from './queries.ts';
import { RemoveSite } from './RemoveSite.tsx';
import { SharedAddressNotice } from './SharedAddressNotice.tsx';
import { SiteAdded } from './SiteAdded.tsx';
import { TopList } from './TopList.tsx';
import { Totals } from './Totals.tsx';
import { TrafficChart } from './TrafficChart.tsx';
import { Vitals } from './Vitals.tsx';
import './analytics.css';

/** The id of "Add a site…": closing the form or the snippet gives it the focus back. */
const ADD_SITE_OPEN = 'add-site-open';

/**
 * A site's visitors, pages, sources, countries, devices, Web Vitals and JavaScript errors over a range
 * (`?site=` and `?range=`; the first site by default), and adding a site for those who may write.
 */
export default function AnalyticsPage() {
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const range = (ranges as readonly string[]).includes(query.get('range') ?? '')
    ? (query.get('range') as Range)
    : '24h';
  const site = query.get('site');
  const read = useAnalytics(site, range);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<SiteCreated | null>(null);
  const shown = read.data?.site ?? null;
  useEffect(() => {
    document.title = shown ? `${shown} · Analytics · mon` : 'Analytics · mon';
  }, [shown]);

  const onAdded = (created: SiteCreated) => {
    setAdded(created);
    setAdding(false);
    navigate(`/analytics?site=${enc(created.domain)}&range=${range}`);
  };

  if (read.isPending) return <Loading />;
  if (read.isError) return <ReadError error={read.error} />;
  const a = read.data;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Analytics{a.site ? `: ${a.site}` : ''}</h1>
          <p className="sub">
            {a.site && a.service ? (
              <>
                Visitors, pages and JavaScript errors of a site of{' '}
                <Link href={`/services/${enc(a.service)}`}>{a.service}</Link>, counted without cookies.
              </>
            ) : (
              'Visitors, pages and JavaScript errors of your web sites, counted without cookies.'
            )}
          </p>
        </div>
        <div className="actions">
          {a.sites.length > 1 ? <SiteSwitcher sites={a.sites} value={a.site} range={range} /> : null}
          {canWrite && a.site && !adding ? (
            <button type="button" id={ADD_SITE_OPEN} onClick={() => setAdding(true)}>
              Add a site…
            </button>
          ) : null}
          {canWrite && a.site && !a.fromFile ? (
            <RemoveSite key={a.site} domain={a.site} service={a.service} />
          ) : null}
        </div>
      </div>
      {added ? (
        <SiteAdded
          site={added}
          onDone={() => closeAndFocus(() => setAdded(null), ADD_SITE_OPEN, fieldId('domain', 'site'))}
        />
      ) : null}
      {adding ? (
        <AddSite onAdded={onAdded} onCancel={() => closeAndFocus(() => setAdding(false), ADD_SITE_OPEN)} />
      ) : null}
      {a.site === null ? (
        <NoSite canWrite={canWrite} onAdded={onAdded} />
      ) : (
        <SiteRead read={a} range={range} />
      )}
    </>
  );
}

/** A choice among the sites mon knows; the range stays. */
function SiteSwitcher({ sites, value, range }: { sites: string[]; value: string | null; range: Range }) {
  return (
    <div className="site-switcher">
      <label htmlFor="site-switcher">Site</label>
      <select
        id="site-switcher"
        value={value ?? ''}
        onChange={(e) => navigate(`/analytics?site=${enc(e.currentTarget.value)}&range=${range}`)}
      >
        {sites.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
    </div>
  );
}

/** No site yet: what a site is, and the form for those who may add one. */
function NoSite({ canWrite, onAdded }: { canWrite: boolean; onAdded: (site: SiteCreated) => void }) {
  return (
    <>
      <section className="card">
        <div className="empty" data-testid="no-site">
          <p>
            <strong>No site yet.</strong>
          </p>
          <p>
            {canWrite ? 'Add a site below: ' : 'An administrator adds a site here: '}
            mon answers with a small script tag for its pages. It counts visitors without cookies, and
            collects the JavaScript errors they hit and how fast pages load for them. Sites named in mon.toml
            (<code>sites</code> of a <code>[[service]]</code>) are listed here too.
          </p>
        </div>
      </section>
      {canWrite ? <AddSite onAdded={onAdded} /> : null}
    </>
  );
}

/** The read of one site: notices, totals and chart, top lists, Web Vitals, errors. */
function SiteRead({ read: a, range }: { read: AnalyticsRead; range: Range }) {
  const site = a.site ?? '';
  const empty = a.totals.views === 0 && (a.errors ?? []).length === 0;
  const omitted = omittedText(a.omitted);
  return (
    <>
      <SharedAddressNotice shared={a.sharedAddress} />
      <section className="card" aria-labelledby="traffic-title">
        <div className="card-head">
          <h2 id="traffic-title">Traffic</h2>
          <RangePicker ranges={ranges} value={range} label="Time range" />
        </div>
        <div className="card-body">
          <Totals totals={a.totals} previous={a.previous} />
          {empty ? (
            <div className="empty" data-testid="no-data">
              <p>
                <strong>No page view in this range.</strong>
              </p>
              <p>
                Views count once the site's pages carry the tracking tag just before{' '}
                <code>&lt;/head&gt;</code> (docs/analytics.md, "Adding a site"). Bots are not counted, nor
                browsers that ask not to be tracked when the tag says to honour that.
              </p>
            </div>
          ) : (
            <TrafficChart series={a.series} />
          )}
        </div>
      </section>
      {omitted.length > 0 ? (
        <p className="muted small" data-testid="omitted">
          Not shown for this range: {omitted.join('; ')}.
        </p>
      ) : null}
      {empty ? null : (
        <>
          <div className="top-lists">
            {analyticsLists.map((list) => (
              <TopList
                key={list}
                site={site}
                range={range}
                list={list}
                top={a.dimensions[list]}
                whole={a.totals[rankedBy(list)]}
              />
            ))}
          </div>
          <Vitals {...a.vitals} from={a.from} />
          {a.errors ? <ErrorGroups errors={a.errors} service={a.service} /> : null}
        </>
      )}
      <p className="muted small" data-testid="times-note">
        {timesNote(a.series.stepMs)}; now {formatTime(Date.now())}.
      </p>
    </>
  );
}
