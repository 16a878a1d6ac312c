import type { ReactNode } from 'react';
import { externalHref } from '../lib/links.ts';

/** Text that links to `url` in a new tab when it is an http(s) URL (deploys and changes give them), else plain text. */
export function ExternalLink({ url, children }: { url: string | null; children: ReactNode }) {
  const href = externalHref(url);
  if (!href) return <span>{children}</span>;
  return (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  );
}
