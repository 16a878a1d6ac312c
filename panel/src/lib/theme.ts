import { useState } from 'react';

/** Light, dark, or the system's choice; kept in localStorage and applied as `data-theme` on <html>. */
export type Theme = 'system' | 'light' | 'dark';

function stored(): Theme {
  try {
    const value = localStorage.getItem('mon-theme');
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

export function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(stored);
  const cycle = () => {
    const next: Theme = theme === 'system' ? 'light' : theme === 'light' ? 'dark' : 'system';
    setTheme(next);
    try {
      if (next === 'system') localStorage.removeItem('mon-theme');
      else localStorage.setItem('mon-theme', next);
    } catch {
      // Private windows may refuse storage; the choice still holds for this page.
    }
    if (next === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = next;
  };
  return [theme, cycle];
}
