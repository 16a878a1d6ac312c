import { Field } from '../../../components/Field.tsx';
import { fieldId } from '../../../lib/form.ts';
import type { FieldsProps } from './KindFields.tsx';

/**
 * When and where a check runs: its interval (or a heartbeat's cron schedule and time zone), the
 * timeout (a heartbeat's grace time), and the agent host it runs from.
 */
export function ScheduleFields({ state, set, form, shown }: FieldsProps) {
  const heartbeat = state.kind === 'heartbeat';
  return (
    <>
      {heartbeat ? (
        <Field {...form.field('schedule')} label="Schedule">
          <fieldset className="segmented" id={fieldId('schedule')}>
            <legend className="sr-only">Schedule</legend>
            <button
              type="button"
              aria-pressed={state.schedule === 'every'}
              onClick={() => set('schedule', 'every')}
            >
              Every interval
            </button>
            <button
              type="button"
              aria-pressed={state.schedule === 'cron'}
              onClick={() => set('schedule', 'cron')}
            >
              Cron
            </button>
          </fieldset>
        </Field>
      ) : null}
      <div className="row">
        {shown.has('everyMs') ? (
          <Field
            {...form.field('everyMs')}
            label={heartbeat ? 'Expected every' : 'Run every'}
            hint="e.g. 30s, 5m, 1h; at least 10s"
          >
            <input
              {...form.control('everyMs', { hint: true })}
              value={state.every}
              onChange={(ev) => set('every', ev.target.value)}
            />
          </Field>
        ) : null}
        {shown.has('cron') ? (
          <Field
            {...form.field('cron')}
            label="Cron expression"
            hint="five fields: minute hour day month weekday"
          >
            <input
              {...form.control('cron', { hint: true })}
              value={state.cron}
              placeholder="0 3 * * *"
              onChange={(ev) => set('cron', ev.target.value)}
              spellCheck={false}
            />
          </Field>
        ) : null}
        {shown.has('timezone') ? (
          <Field {...form.field('timezone')} label="Time zone" hint="IANA name; UTC when empty">
            <input
              {...form.control('timezone', { hint: true })}
              value={state.timezone}
              placeholder="UTC"
              onChange={(ev) => set('timezone', ev.target.value)}
              spellCheck={false}
            />
          </Field>
        ) : null}
        {shown.has('graceMs') ? (
          <Field {...form.field('graceMs')} label="Grace time" hint="how late a ping may be; 5m when empty">
            <input
              {...form.control('graceMs', { hint: true })}
              value={state.grace}
              placeholder="5m"
              onChange={(ev) => set('grace', ev.target.value)}
            />
          </Field>
        ) : null}
        {shown.has('timeoutMs') ? (
          <Field {...form.field('timeoutMs')} label="Timeout" hint="10s when empty">
            <input
              {...form.control('timeoutMs', { hint: true })}
              value={state.timeout}
              placeholder="10s"
              onChange={(ev) => set('timeout', ev.target.value)}
            />
          </Field>
        ) : null}
        {shown.has('from') ? (
          <Field
            {...form.field('from')}
            label="Run from host"
            hint="an agent's host name; the server when empty"
          >
            <input
              {...form.control('from', { hint: true })}
              value={state.from}
              onChange={(ev) => set('from', ev.target.value)}
              spellCheck={false}
            />
          </Field>
        ) : null}
      </div>
    </>
  );
}
