import { useId } from 'react';
import { closeAndFocus, useFocusOnMount } from '../lib/focus.ts';

type Props = {
  question: string;
  action: string;
  busy?: boolean;
  /** Id of the button that opened the question: it comes back on cancel and gets the focus again. */
  trigger: string;
  onConfirm: () => void;
  onCancel: () => void;
};

/** An inline "are you sure" for destructive actions; focus lands on Cancel, Escape cancels from either button. */
export function Confirm({ question, action, busy, trigger, onConfirm, onCancel }: Props) {
  const cancelButton = useFocusOnMount<HTMLButtonElement>();
  const questionId = useId();
  const cancel = () => closeAndFocus(onCancel, trigger);
  return (
    // A group, so that Escape works from either button.
    <fieldset
      className="confirm"
      aria-labelledby={questionId}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          cancel();
        }
      }}
    >
      <span id={questionId}>{question}</span>
      <button type="button" className="danger solid" onClick={onConfirm} disabled={busy}>
        {action}
      </button>
      <button ref={cancelButton} type="button" onClick={cancel}>
        Cancel
      </button>
    </fieldset>
  );
}
