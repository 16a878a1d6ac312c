import { useState } from 'react';
import type { SiteCreated } from '../../../../protocol/analytics.ts';
import { defaultServiceName } from '../../../../protocol/analytics-constants.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { useFocusOnMount } from '../../lib/focus.ts';
import { Invalid, useForm } from '../../lib/form.ts';
import { homePageCheck, siteErrors } from './describe.ts';
import { addSite, useRefreshSites } from './queries.ts';

/**
 * The form that adds a site: its domain, its service (made when missing) and, if asked, an http check of
 * its home page, all in one step. Refusals land at the field they concern.
 */
export function AddSite({
  onAdded,
  onCancel,
}: {
  onAdded: (site: SiteCreated) => void;
  onCancel?: () => void;
}) {
  const refresh = useRefreshSites();
  const [domain, setDomain] = useState('');
  const [withCheck, setWithCheck] = useState(true);
  const first = useFocusOnMount<HTMLInputElement>(onCancel !== undefined);
  const form = useForm(
    async (data) => {
      const host = String(data.get('domain') ?? '')
        .trim()
        .toLowerCase();
      if (!host)
        throw new Invalid({ domain: 'required: the host name of the site, such as shop.example.com' });
      const service = String(data.get('service') ?? '').trim() || defaultServiceName(host);
      const check = withCheck ? homePageCheck(host, service) : null;
      try {
        onAdded(await addSite({ domain: host, service, check }));
      } catch (error) {
        const fields = siteErrors(error, { service, check: check?.name ?? null });
        throw fields ? new Invalid(fields) : error;
      }
      setDomain('');
      void refresh();
    },
    { scope: 'site', fields: ['domain', 'service', 'check'], reset: true },
  );
  const host = domain.trim().toLowerCase();
  return (
    <section className="card" aria-labelledby="add-site-title" data-testid="add-site">
      <div className="card-head">
        <h2 id="add-site-title">Add a site</h2>
      </div>
      <form
        className="card-body"
        onSubmit={form.onSubmit}
        noValidate
        onKeyDown={(e) => {
          // Escape closes the form opened by "Add a site…", as Cancel does.
          if (e.key === 'Escape' && onCancel) {
            e.stopPropagation();
            onCancel();
          }
        }}
      >
        <div className="row">
          <Field
            {...form.field('domain')}
            label="Domain"
            hint="The host name the pages are served from, without https:// or a path."
          >
            <input
              {...form.control('domain', { hint: true })}
              ref={first}
              required
              placeholder="shop.example.com"
              autoComplete="off"
              spellCheck={false}
              value={domain}
              onChange={(e) => setDomain(e.currentTarget.value)}
            />
          </Field>
          <Field
            {...form.field('service')}
            label="Service"
            hint="Its JavaScript errors and visitors show on this service's incidents. Made when missing."
          >
            <input
              {...form.control('service', { hint: true })}
              placeholder={host ? defaultServiceName(host) : 'shop-example-com'}
              autoComplete="off"
            />
          </Field>
        </div>
        <Field
          {...form.field('check')}
          label="Uptime"
          hint="An http check of the home page in the site's service: it alerts when the site is down."
        >
          <label className="check">
            <input
              {...form.control('check', { hint: true })}
              type="checkbox"
              checked={withCheck}
              onChange={(e) => setWithCheck(e.currentTarget.checked)}
            />
            Also check {host ? `https://${host}/` : 'its home page'} every minute
          </label>
        </Field>
        <ErrorBox error={form.formError} title="Could not add the site." />
        <div className="actions">
          <button type="submit" className="primary" disabled={form.busy}>
            Add site
          </button>
          {onCancel ? (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
