import { useEffect, useRef } from 'react';
import { flushSync } from 'react-dom';

/** Focuses an element when it appears: the first field of a form, or Cancel of a confirmation. */
export function useFocusOnMount<T extends HTMLElement>(enabled = true) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
  }, [enabled]);
  return ref;
}

/**
 * Closes a part (a form, a one-time secret, a longer list) and gives the focus back to the control that
 * opened it, the first of `ids` on the page, instead of letting it drop to the page's start. The close
 * renders now, so that a control it brings back can take the focus.
 */
export function closeAndFocus(close: () => void, ...ids: string[]): void {
  flushSync(close);
  for (const id of ids) {
    const element = document.getElementById(id);
    if (element) {
      element.focus();
      return;
    }
  }
}
