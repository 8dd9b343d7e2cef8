import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../router.ts';

/**
 * A real `<a href>` (so it can be opened in a new tab, copied, and reached with Tab) that
 * navigates in place on a plain click.
 */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
    window.scrollTo(0, 0);
    // Keyboard and screen-reader users land at the top of the new view, not on a stale link.
    document.getElementById('main')?.focus({ preventScroll: true });
  };
  return <a href={href} onClick={click} {...rest} />;
}
