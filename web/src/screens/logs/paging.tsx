/**
 * Cursor paging of the logs (SPEC's `cursor` and `X-Next-Cursor`): the page's cursor is in the address,
 * so every page is a link and the back button returns to the newer page.
 */
export function CursorPager(props: { label: string; cursor: string; next?: string; href: (cursor: string) => string }) {
  if (!props.cursor && !props.next) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      {props.cursor && <a href={props.href('')}>Newest entries</a>}
      {props.next ? (
        <a href={props.href(props.next)} rel="next">
          Older entries
        </a>
      ) : (
        <span class="muted">No older entries</span>
      )}
    </nav>
  );
}

/** A time as the reader's clock shows it, in a machine-readable element. */
export function When(props: { at: string }) {
  return (
    <time dateTime={props.at}>
      {new Date(props.at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}
    </time>
  );
}

/** Entries per page of the logs. */
export const LOG_PAGE = 25;
