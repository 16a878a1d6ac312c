import { useRef, useState } from 'react';

/**
 * A read-only value with a copy button; the text is selectable when the clipboard is not available.
 * `multiline` shows a value of several lines (a shell snippet) in a text area.
 */
export function CopyField({
  value,
  label,
  multiline = false,
}: {
  value: string;
  label: string;
  multiline?: boolean;
}) {
  const input = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Plain http outside localhost has no clipboard API: select the text for Ctrl+C instead.
      input.current?.select();
      document.execCommand?.('copy');
    }
    setCopied(true);
    window.setTimeout(() => setCopied(false), 1600);
  };
  const shared = {
    ref: input,
    readOnly: true,
    value,
    'aria-label': label,
    onFocus: (e: { currentTarget: { select(): void } }) => e.currentTarget.select(),
  };
  return (
    <div className={multiline ? 'copy copy-multiline' : 'copy'}>
      {multiline ? (
        <textarea {...shared} rows={Math.min(12, value.split('\n').length)} spellCheck={false} />
      ) : (
        <input {...shared} />
      )}
      <button type="button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <span className="sr-only" aria-live="polite">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </div>
  );
}
