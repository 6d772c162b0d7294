import type { ComponentChildren } from 'preact';
import { Loaded, Page, useLoad } from '../../ui';

/**
 * The page of a create or edit form: "New <noun>", or "Edit <name>" once the item is loaded (its
 * failure said instead of the form). `children` draws the form, given the item when editing.
 */
export function EditPage<T>(props: {
  noun: string;
  id?: string;
  load?: (signal: AbortSignal) => Promise<T>;
  name: (item: T) => string;
  children: (item?: T) => ComponentChildren;
}) {
  const existing = useLoad((signal) => (props.load ? props.load(signal) : Promise.resolve(null)), [props.id]);
  const editing = Boolean(props.load);
  const title = editing ? `Edit ${props.noun}` : `New ${props.noun}`;
  return (
    <Page title={title} heading={editing ? <>Edit {existing.data ? props.name(existing.data) : props.noun}</> : title}>
      <Loaded state={existing} label={`the ${props.noun}`}>
        {(item) => props.children(item ?? undefined)}
      </Loaded>
    </Page>
  );
}

/** A form's buttons: save (busy while saving) and cancel back to where the reader came from. */
export function FormActions(props: { busy: boolean; save: string; cancelHref: string }) {
  return (
    <div class="actions">
      <button type="submit" class="primary" disabled={props.busy}>
        {props.save}
      </button>
      <a class="button" href={props.cancelHref}>
        Cancel
      </a>
    </div>
  );
}
