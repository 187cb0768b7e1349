import { useEffect, useState } from 'preact/hooks';

/**
 * The part of the address after the page (`#/reports/queue` → `queue`), so a report, a call or a
 * contact has an address of its own: the back button and a bookmark work inside a page too.
 */
function read(page: string): string[] {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  return parts[0] === page ? parts.slice(1).map(decodeURIComponent) : [];
}

/** The first part after the page, or `fallback`. */
export function useSubPage(page: string, fallback = ''): string {
  return useSubPath(page)[0] || fallback;
}

/** Every part after the page. */
export function useSubPath(page: string): string[] {
  const [parts, setParts] = useState(() => read(page));
  useEffect(() => {
    const on = () => setParts(read(page));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, [page]);
  return parts;
}

export function subHref(page: string, ...parts: string[]): string {
  return `#/${[page, ...parts.map(encodeURIComponent)].join('/')}`;
}
