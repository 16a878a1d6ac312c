import { useState } from 'react';
import type { SiteCreated } from '../../../../protocol/analytics.ts';
import { CopyField } from '../../components/Copy.tsx';
import { enc } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { Link } from '../../lib/router.tsx';
import { snippetWithDnt } from './describe.ts';

/** The snippet of a site just added, with where to put it and the choice of honouring Do Not Track. */
export function SiteAdded({ site, onDone }: { site: SiteCreated; onDone: () => void }) {
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const [dnt, setDnt] = useState(false);
  return (
    <section className="secret-once" aria-labelledby="site-added-title" data-testid="site-added">
      <h2 id="site-added-title" ref={heading} tabIndex={-1}>
        {site.domain} added
      </h2>
      <p>
        It belongs to the service <Link href={`/services/${enc(site.service)}`}>{site.service}</Link>
        {site.check ? (
          <>
            , with a <Link href={`/checks/${enc(site.check)}`}>check of its home page</Link> every minute
          </>
        ) : null}
        . Put this tag in every page of the site, just before <code>&lt;/head&gt;</code> (in the layout the
        pages share): visits count from the first page that carries it.
      </p>
      <CopyField
        value={dnt ? snippetWithDnt(site.snippet) : site.snippet}
        label="Tracking snippet"
        multiline
      />
      <label className="check">
        <input type="checkbox" checked={dnt} onChange={(e) => setDnt(e.currentTarget.checked)} />
        Honour Do Not Track and Global Privacy Control
      </label>
      <p className="muted small">
        With <code>data-dnt</code> in the tag, browsers that ask not to be tracked (Do Not Track, or Global
        Privacy Control) send nothing: they are not counted, and their errors and Web Vitals are not
        collected. Without it, mon counts them too: it sets no cookie and stores no address either way.
      </p>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
