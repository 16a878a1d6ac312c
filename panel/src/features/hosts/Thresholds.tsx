import { Fragment, useState } from 'react';
import type { HostRead } from '../../../../protocol/hosts.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { useForm } from '../../lib/form.ts';
import { mountsText, thresholdFields, thresholdText } from './describe.ts';
import { saveHostAlerts, useRefreshHosts } from './queries.ts';
import { alertsBody, mountError, thresholdPaths } from './thresholds.ts';

const fromWords: Record<HostRead['alertsFrom'], string> = {
  file: 'set by its [[host]] table in mon.toml',
  api: 'set here',
  default: "mon's defaults",
};

/**
 * The host's alert thresholds: CPU, memory, swap and temperature alert after 5 minutes above their limit,
 * a disk at once. Admins change them here, unless mon.toml names the host: then they live in the file.
 */
export function Thresholds({ host, canWrite }: { host: HostRead; canWrite: boolean }) {
  const [saved, setSaved] = useState(false);
  const editable = canWrite && !host.fromFile;
  return (
    <section className="card" aria-labelledby="thresholds-title" data-testid="thresholds">
      <div className="card-head">
        <h2 id="thresholds-title">Alert thresholds</h2>
        <span className="muted small">{fromWords[host.alertsFrom]}</span>
      </div>
      <div className="card-body">
        <p className="muted" style={{ marginTop: 0 }}>
          CPU, memory, swap and temperature alert once above their limit for 5 minutes; a disk alerts as soon
          as its fullest filesystem (not ignored) reaches the limit.
        </p>
        {editable ? (
          <ThresholdsForm
            // Remounted when the stored thresholds change, so that the fields start as they are.
            key={JSON.stringify(host.alerts)}
            host={host}
            onSaved={setSaved}
          />
        ) : (
          <>
            <dl className="kv" data-testid="thresholds-read">
              {thresholdFields.map((f) => (
                <Fragment key={f.key}>
                  <dt>{f.label}</dt>
                  <dd>{thresholdText(host.alerts[f.key], f.unit)}</dd>
                </Fragment>
              ))}
              <dt>Ignored mounts</dt>
              <dd className="mono">{mountsText(host.alerts.ignoreMounts) || 'none'}</dd>
            </dl>
            {host.fromFile ? (
              <p className="muted" data-testid="thresholds-file">
                {host.name} is named in mon.toml, so its thresholds are set there: add or change its{' '}
                <code>[[host]]</code> table (<code>cpu</code>, <code>memory</code>, <code>swap</code>,{' '}
                <code>disk</code>, <code>temperature</code>, <code>false</code> for off,{' '}
                <code>ignore_mounts</code>). The file is reloaded on save.
              </p>
            ) : null}
          </>
        )}
        {saved ? (
          <p role="status" className="muted">
            Saved: the next sample is judged by these.
          </p>
        ) : null}
      </div>
    </section>
  );
}

function ThresholdsForm({ host, onSaved }: { host: HostRead; onSaved: (saved: boolean) => void }) {
  const refresh = useRefreshHosts();
  const form = useForm(
    async (data) => {
      onSaved(false);
      const body = alertsBody(data);
      try {
        await saveHostAlerts(host.name, body);
      } catch (error) {
        throw mountError(error, body.ignoreMounts) ?? error;
      }
      onSaved(true);
      await refresh();
    },
    { scope: 'alerts', fields: thresholdPaths },
  );
  return (
    <form onSubmit={form.onSubmit} noValidate>
      <div className="row">
        {thresholdFields.map((f) => (
          <Field {...form.field(f.key)} key={f.key} label={`${f.label} (${f.unit})`} hint="Empty: no alert.">
            <input
              {...form.control(f.key, { hint: true })}
              type="number"
              inputMode="decimal"
              min={1}
              max={f.max}
              step="any"
              defaultValue={host.alerts[f.key] ?? ''}
            />
          </Field>
        ))}
      </div>
      <Field
        {...form.field('ignoreMounts')}
        label="Ignored mounts"
        hint="Mount paths, separated by spaces (a space inside one written \040, as in /etc/fstab): neither charted as the fullest disk nor alerted on, such as /boot."
      >
        <input
          {...form.control('ignoreMounts', { hint: true })}
          defaultValue={mountsText(host.alerts.ignoreMounts)}
          placeholder="/boot"
          spellCheck={false}
        />
      </Field>
      <ErrorBox error={form.formError} title="Could not save." />
      <button type="submit" className="primary" disabled={form.busy}>
        Save thresholds
      </button>
    </form>
  );
}
