import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { to } from '../../links';
import { Alert, ConfirmButton, message } from '../../ui';

/**
 * A detail page's actions: edit, the item's history (the audit log filtered to it) and delete behind a
 * confirmation, which returns to the list; a refusal is said under the heading.
 */
export function useDetailActions(props: {
  projectId: string;
  editHref: string;
  entityId: string;
  confirm: string;
  remove: () => Promise<unknown>;
  listHref: string;
}) {
  const { route } = useLocation();
  const [error, setError] = useState<string>();
  const actions = (
    <>
      <a class="button" href={props.editHref}>
        Edit
      </a>
      <a class="button" href={to.audit(props.projectId, { entity_id: props.entityId })}>
        History
      </a>
      <ConfirmButton
        label="Delete"
        confirm={props.confirm}
        onConfirm={async () => {
          try {
            await props.remove();
            route(props.listHref, true);
          } catch (err) {
            setError(message(err));
          }
        }}
      />
    </>
  );
  return { actions, alert: <Alert>{error}</Alert> };
}

/** A fact's value, or a dash for none. */
export const orDash = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v);
