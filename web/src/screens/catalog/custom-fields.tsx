import { useState } from 'preact/hooks';
import { api, ok, type CustomField } from '../../api';
import { shownValue } from '../../custom-fields';
import { TextArea } from '../../form-fields';
import { TableWrap } from '../../table-wrap';
import { Alert, ConfirmButton, Field, Loaded, message, Page, Select, useLoad, useSubmit } from '../../ui';

const TYPES: [CustomField['type'], string][] = [
  ['text', 'Text'],
  ['number', 'Number'],
  ['boolean', 'Yes / no'],
  ['date', 'Date'],
  ['url', 'Link (URL)'],
  ['select', 'One of a list'],
  ['multiselect', 'Several of a list'],
];
const KINDS: [CustomField['applies_to'][number], string][] = [
  ['service', 'Services'],
  ['service_floor', 'Servers'],
  ['network', 'Networks'],
];
const kindLabel = new Map(KINDS);

/** `/p/:projectId/custom-fields`: the project's custom fields; define one, delete one (its values go with it). */
export function CustomFields(props: { projectId: string }) {
  const list = useLoad(
    (signal) =>
      ok(
        api.GET('/projects/{project_id}/custom-fields', { params: { path: { project_id: props.projectId } }, signal }),
      ),
    [props.projectId],
  );
  const [error, setError] = useState<string>();
  const remove = async (key: string) => {
    setError(undefined);
    try {
      await ok(
        api.DELETE('/projects/{project_id}/custom-fields/{key}', {
          params: { path: { project_id: props.projectId, key } },
        }),
      );
      list.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <Page title="Custom fields">
      <p class="muted">
        Custom fields are the attributes your team records on services, servers and networks (owning team, tier, cost
        centre, runbook…). The project's owner, or a member whose role grants project settings, defines them.
      </p>
      <Alert>{error}</Alert>
      <Loaded state={list} label="custom fields">
        {(defs) =>
          defs.length ? (
            <TableWrap label="Custom fields, scrollable">
              <table class="grid">
                <caption class="sr-only">Custom fields</caption>
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Key</th>
                    <th scope="col">Type</th>
                    <th scope="col">For</th>
                    <th scope="col">Default</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {defs.map((d) => (
                    <tr key={d.key}>
                      <th scope="row">
                        {d.label}
                        {d.required ? ' (required)' : ''}
                        {d.status === 'deleting' ? ' (being deleted)' : ''}
                      </th>
                      <td>
                        <code>{d.key}</code>
                      </td>
                      <td>
                        {TYPES.find(([t]) => t === d.type)?.[1]}
                        {d.choices?.length ? `: ${d.choices.join(', ')}` : ''}
                      </td>
                      <td>{d.applies_to.map((k) => kindLabel.get(k)).join(', ')}</td>
                      <td>{shownValue(d.default)}</td>
                      <td>
                        {d.status === 'active' && (
                          <ConfirmButton
                            label="Delete"
                            subject={d.label}
                            confirm={`Delete ${d.label} and its values on every item?`}
                            onConfirm={() => remove(d.key)}
                          />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          ) : (
            <p>No custom field yet.</p>
          )
        }
      </Loaded>
      <h2>New custom field</h2>
      <NewField projectId={props.projectId} onSaved={list.reload} />
    </Page>
  );
}

function NewField(props: { projectId: string; onSaved: () => void }) {
  const empty = { key: '', label: '', type: 'text', choices: '', default: '', pattern: '' };
  const [draft, setDraft] = useState(empty);
  const [kinds, setKinds] = useState<string[]>(['service']);
  const [required, setRequired] = useState(false);
  const set = (k: keyof typeof empty) => (v: string) => setDraft({ ...draft, [k]: v });
  const choosing = draft.type === 'select' || draft.type === 'multiselect';
  const { submit, busy, error, fields } = useSubmit(async () => {
    const choices = draft.choices
      .split('\n')
      .map((c) => c.trim())
      .filter(Boolean);
    const fallback = draft.default.trim();
    await ok(
      api.POST('/projects/{project_id}/custom-fields', {
        params: { path: { project_id: props.projectId } },
        body: {
          key: draft.key.trim(),
          label: draft.label.trim(),
          type: draft.type as CustomField['type'],
          applies_to: kinds as CustomField['applies_to'],
          required,
          ...(choosing ? { choices } : {}),
          ...(draft.pattern.trim() ? { pattern: draft.pattern.trim() } : {}),
          ...(fallback
            ? {
                default:
                  draft.type === 'number'
                    ? Number(fallback)
                    : draft.type === 'boolean'
                      ? fallback === 'true'
                      : draft.type === 'multiselect'
                        ? fallback.split(',').map((c) => c.trim())
                        : fallback,
              }
            : {}),
        },
      }),
    );
    setDraft(empty);
    props.onSaved();
  }, ['key', 'label', 'type', 'applies_to', 'choices', 'default', 'pattern']);
  return (
    <form class="service-form" onSubmit={submit} noValidate>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Field label="Label" name="label" value={draft.label} onValue={set('label')} error={fields.label} required />
        <Field
          label="Key"
          name="key"
          value={draft.key}
          onValue={set('key')}
          error={fields.key}
          required
          hint="Lower-case letters, digits and _ (as in cf.<key>=… filters)"
        />
        <Select label="Type" name="type" value={draft.type} onValue={set('type')} error={fields.type} options={TYPES} />
        <fieldset class={fields.applies_to ? 'field invalid' : 'field'}>
          <legend>For</legend>
          {KINDS.map(([k, label]) => (
            <label key={k} class="check">
              <input
                type="checkbox"
                name="applies_to"
                value={k}
                checked={kinds.includes(k)}
                onChange={(e) => setKinds(e.currentTarget.checked ? [...kinds, k] : kinds.filter((x) => x !== k))}
              />{' '}
              {label}
            </label>
          ))}
          {fields.applies_to && <p class="error">{fields.applies_to}</p>}
        </fieldset>
        {choosing && (
          <TextArea
            label="Choices"
            name="choices"
            value={draft.choices}
            onValue={set('choices')}
            error={fields.choices}
            hint="One per line"
          />
        )}
        {draft.type === 'text' && (
          <Field
            label="Pattern"
            name="pattern"
            value={draft.pattern}
            onValue={set('pattern')}
            error={fields.pattern}
            hint="A regular expression the whole value must match (optional)"
          />
        )}
        <Field
          label="Default"
          name="default"
          value={draft.default}
          onValue={set('default')}
          error={fields.default}
          hint="Given to new items (optional)"
        />
        <label class="check">
          <input
            type="checkbox"
            name="required"
            checked={required}
            onChange={(e) => setRequired(e.currentTarget.checked)}
          />{' '}
          Required
        </label>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Create field
        </button>
      </div>
    </form>
  );
}
