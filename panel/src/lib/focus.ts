import { useEffect, useRef } from 'react';

/** Focuses an element when it appears: the first field of a form, or Cancel of a confirmation. */
export function useFocusOnMount<T extends HTMLElement>(enabled = true) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
  }, [enabled]);
  return ref;
}
