import { Field } from '../../../components/Field.tsx';
import { fieldId } from '../../../lib/form.ts';
import type { FieldsProps } from './KindFields.tsx';

/**
 * When and where a check runs: its interval (or a heartbeat's cron schedule and time zone), the
 * timeout (a heartbeat's grace time), and the agent host it runs from.
 */
export function ScheduleFields(props: FieldsProps) {
  const { state, set, form, shown } = props;
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
          <TextField
            {...props}
            path="everyMs"
            field="every"
            label={heartbeat ? 'Expected every' : 'Run every'}
            hint="e.g. 30s, 5m, 1h; at least 10s"
          />
        ) : null}
        {shown.has('cron') ? (
          <TextField
            {...props}
            path="cron"
            field="cron"
            label="Cron expression"
            hint="five fields: minute hour day month weekday"
            example="0 3 * * *"
            code
          />
        ) : null}
        {shown.has('timezone') ? (
          <TextField
            {...props}
            path="timezone"
            field="timezone"
            label="Time zone"
            hint="IANA name; UTC when empty"
            example="UTC"
            code
          />
        ) : null}
        {shown.has('graceMs') ? (
          <TextField
            {...props}
            path="graceMs"
            field="grace"
            label="Grace time"
            hint="how late a ping may be; 5m when empty"
            example="5m"
          />
        ) : null}
        {shown.has('timeoutMs') ? (
          <TextField
            {...props}
            path="timeoutMs"
            field="timeout"
            label="Timeout"
            hint="10s when empty"
            example="10s"
          />
        ) : null}
        {shown.has('from') ? (
          <TextField
            {...props}
            path="from"
            field="from"
            label="Run from host"
            hint="an agent's host name; the server when empty"
            code
          />
        ) : null}
      </div>
    </>
  );
}

type TextKey = 'every' | 'cron' | 'timezone' | 'grace' | 'timeout' | 'from';

/**
 * One text field of the schedule: `path` is the API field its errors name, `field` the form state it
 * edits, `example` the text shown while it is empty, `code` for values that are not words (no spell check).
 */
function TextField({
  state,
  set,
  form,
  path,
  field,
  label,
  hint,
  example,
  code = false,
}: FieldsProps & {
  path: string;
  field: TextKey;
  label: string;
  hint: string;
  example?: string;
  code?: boolean;
}) {
  return (
    <Field {...form.field(path)} label={label} hint={hint}>
      <input
        {...form.control(path, { hint: true })}
        value={state[field]}
        {...(example === undefined ? {} : { placeholder: example })}
        onChange={(ev) => set(field, ev.target.value)}
        {...(code ? { spellCheck: false } : {})}
      />
    </Field>
  );
}
