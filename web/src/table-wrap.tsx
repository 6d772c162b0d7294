import type { ComponentChildren } from 'preact';

/**
 * A wide table that scrolls sideways on a narrow screen: a labelled region that takes focus, so a
 * keyboard can scroll it too (axe's scrollable-region-focusable).
 */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll it (WCAG 2.1.1; axe's scrollable-region-focusable)
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}
