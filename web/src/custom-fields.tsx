import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok, type CustomField } from './api';
import { useLoad } from './ui';
import { Field, Select } from './ui';

/** The kinds of item a custom field applies to, as the API names them. */
export type CustomKind = CustomField['applies_to'][number];
type Values = Record<string, unknown>;
/** A value as the API takes it (null: removed). */
type Sent = string | number | boolean | string[] | null;
/** The form's text of each custom field (a multiselect: its chosen values). */
export type CustomDraft = Record<string, string | string[]>;

/** The project's custom field definitions that apply to `kind` (active ones). */
export function useCustomFields(projectId: string, kind: CustomKind) {
  return useLoad(
    async (signal) =>
      (
        await ok(
          api.GET('/projects/{project_id}/custom-fields', { params: { path: { project_id: projectId } }, signal }),
        )
      ).filter((d) => d.status === 'active' && d.applies_to.includes(kind)),
    [projectId, kind],
  );
}

/** A value as a table cell or a detail line shows it. */
export function shownValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

export const customDraftOf = (defs: CustomField[], values?: Values): CustomDraft =>
  Object.fromEntries(
    defs.map((d) => {
      const v = values?.[d.key];
      if (d.type === 'multiselect') return [d.key, Array.isArray(v) ? v.map(String) : []];
      if (d.type === 'boolean') return [d.key, v === true ? 'true' : v === false ? 'false' : ''];
      return [d.key, v === undefined || v === null ? '' : String(v)];
    }),
  );

/**
 * What the form sends as `custom_fields`: a number as a number when it is one (else as typed, for the
 * API to refuse), empty as null (removed); on create, empty ones are left out so defaults apply.
 */
export function customBody(defs: CustomField[], draft: CustomDraft, creating: boolean): Record<string, Sent> {
  const out: Record<string, Sent> = {};
  for (const d of defs) {
    const raw = draft[d.key];
    let v: Sent;
    if (Array.isArray(raw)) v = raw.length ? raw : null;
    else if (!raw?.trim()) v = null;
    else if (d.type === 'number') v = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else if (d.type === 'boolean') v = raw === 'true';
    else v = raw.trim();
    if (v !== null || !creating) out[d.key] = v;
  }
  return out;
}

/** The input of each custom field, by its type; the API's 422 about one (`custom_fields.<key>`) under it. */
export function CustomFieldInputs(props: {
  defs: CustomField[];
  draft: CustomDraft;
  onDraft: (d: CustomDraft) => void;
  errors: Record<string, string>;
}) {
  const set = (key: string) => (v: string | string[]) => props.onDraft({ ...props.draft, [key]: v });
  return (
    <>
      {props.defs.map((d) => {
        const name = `custom_fields.${d.key}`;
        const error = props.errors[name];
        const label = d.required ? `${d.label} (required)` : d.label;
        const value = props.draft[d.key];
        if (d.type === 'select' || d.type === 'boolean') {
          const options: [string, string][] =
            d.type === 'boolean'
              ? [
                  ['', '—'],
                  ['true', 'Yes'],
                  ['false', 'No'],
                ]
              : [['', '—'], ...(d.choices ?? []).map((c): [string, string] => [c, c])];
          return (
            <Select
              key={d.key}
              label={label}
              name={name}
              value={String(value ?? '')}
              onValue={set(d.key)}
              error={error}
              options={options}
            />
          );
        }
        if (d.type === 'multiselect') {
          const chosen = Array.isArray(value) ? value : [];
          return (
            <fieldset
              key={d.key}
              class={error ? 'field invalid' : 'field'}
              aria-describedby={error ? `f-${name}-error` : undefined}
            >
              <legend>{label}</legend>
              {(d.choices ?? []).map((c) => (
                <label key={c} class="check">
                  <input
                    type="checkbox"
                    name={name}
                    value={c}
                    checked={chosen.includes(c)}
                    onChange={(e) =>
                      set(d.key)(e.currentTarget.checked ? [...chosen, c] : chosen.filter((x) => x !== c))
                    }
                  />{' '}
                  {c}
                </label>
              ))}
              {error && (
                <p class="error" id={`f-${name}-error`}>
                  {error}
                </p>
              )}
            </fieldset>
          );
        }
        return (
          <Field
            key={d.key}
            label={label}
            name={name}
            value={String(value ?? '')}
            onValue={set(d.key)}
            error={error}
            type={d.type === 'date' ? 'date' : d.type === 'url' ? 'url' : 'text'}
            inputMode={d.type === 'number' ? 'numeric' : undefined}
            hint={d.type === 'url' ? 'Starts with http:// or https://' : d.pattern ? `Matches ${d.pattern}` : undefined}
          />
        );
      })}
    </>
  );
}

/** The custom field values of an item as description-list rows (the definitions give labels and order). */
export function CustomFieldRows(props: { defs: CustomField[]; values: Values }) {
  return (
    <>
      {props.defs
        .filter((d) => props.values[d.key] !== undefined)
        .map((d) => (
          <Fragment key={d.key}>
            <dt>{d.label}</dt>
            <dd>
              {d.type === 'url' ? (
                <a href={String(props.values[d.key])} rel="noreferrer noopener">
                  {String(props.values[d.key])}
                </a>
              ) : (
                shownValue(props.values[d.key])
              )}
            </dd>
          </Fragment>
        ))}
    </>
  );
}

/** An item's custom field values as facts rows, the definitions of its project read here. */
export function CustomFacts(props: { projectId: string; kind: CustomKind; values: Values }) {
  const defs = useCustomFields(props.projectId, props.kind);
  return <CustomFieldRows defs={defs.data ?? []} values={props.values} />;
}

/**
 * A form's custom fields: the definitions of `kind`, the draft (the item's values until edited),
 * and the body to send; its inputs are `<CustomFieldInputs {...}/>`.
 */
export function useCustomDraft(projectId: string, kind: CustomKind, values?: Values) {
  const defs = useCustomFields(projectId, kind);
  const [edits, setEdits] = useState<CustomDraft>({});
  const list = defs.data ?? [];
  const draft = { ...customDraftOf(list, values), ...edits };
  return {
    defs: list,
    draft,
    setDraft: setEdits,
    names: list.map((d) => `custom_fields.${d.key}`),
    body: (creating: boolean) => customBody(list, draft, creating),
  };
}

/** `tier=gold, tier=silver, team=ops` → the API's `cf.<key>` parameters (a key repeated: any of its values). */
export function customFilters(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const key = `cf.${part.slice(0, at).trim()}`;
    out[key] = [...(out[key] ?? []), part.slice(at + 1).trim()];
  }
  return out;
}

/** The filter of a table's custom fields, as its filter form shows it. */
export const CUSTOM_FILTER = { key: 'cf', label: 'Custom fields (key=value, comma-separated)' } as const;

/**
 * A table's optional custom field columns: the checkboxes that choose them (`picker`, none when the
 * project defines no field for `kind`) and the definitions chosen, in definition order (`shown`).
 */
export function useCustomColumns(projectId: string, kind: CustomKind) {
  const defs = useCustomFields(projectId, kind);
  const [chosen, setChosen] = useState<string[]>([]);
  const all = defs.data ?? [];
  const picker = all.length ? (
    <fieldset class="columns">
      <legend>Custom field columns</legend>
      {all.map((d) => (
        <label key={d.key} class="check">
          <input
            type="checkbox"
            checked={chosen.includes(d.key)}
            onChange={(e) =>
              setChosen(e.currentTarget.checked ? [...chosen, d.key] : chosen.filter((c) => c !== d.key))
            }
          />{' '}
          {d.label}
        </label>
      ))}
    </fieldset>
  ) : null;
  return { picker, shown: all.filter((d) => chosen.includes(d.key)) };
}
