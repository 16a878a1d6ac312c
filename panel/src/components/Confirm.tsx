import { useFocusOnMount } from '../lib/focus.ts';

type Props = {
  question: string;
  action: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/** An inline "are you sure" for destructive actions; focus lands on Cancel, Escape cancels. */
export function Confirm({ question, action, busy, onConfirm, onCancel }: Props) {
  const cancel = useFocusOnMount<HTMLButtonElement>();
  return (
    <span className="confirm">
      <span>{question}</span>
      <button type="button" className="danger solid" onClick={onConfirm} disabled={busy}>
        {action}
      </button>
      <button
        ref={cancel}
        type="button"
        onClick={onCancel}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
        }}
      >
        Cancel
      </button>
    </span>
  );
}
