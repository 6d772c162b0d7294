import type { ServiceInput } from './api';
import { Field } from './ui';

/**
 * What the create/edit forms of services, servers and networks share: the text of a field turned into
 * what the API takes, and a grid of labelled text fields with the API's 422 under each.
 */

/** The providers the API takes on services and servers (checked against the generated types). */
export const PROVIDERS = [
  'aws',
  'azure',
  'gcp',
  'digitalocean',
  'hetzner',
  'ovh',
  'linode',
  'on-premise',
] as const satisfies readonly NonNullable<ServiceInput['provider']>[];
/** The provider select's options, "—" for none. */
export const PROVIDER_OPTIONS: [string, string][] = [['', '—'], ...PROVIDERS.map((p): [string, string] => [p, p])];

/** Empty text is null (the field cleared). */
export const textOrNull = (v: string): string | null => (v.trim() === '' ? null : v.trim());
/** A whole number as a number; other text as typed, for the API to refuse next to its field; empty is null. */
export const numberOrNull = (v: string): number | null =>
  v.trim() === '' ? null : /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : (v.trim() as unknown as number);
/** A list typed with `separator` (a comma, a new line): trimmed, empty entries dropped. */
export const listOf = (v: string, separator: string | RegExp = ','): string[] =>
  v
    .split(separator)
    .map((t) => t.trim())
    .filter(Boolean);
/** The text field of an optional value. */
export const textOf = (v: string | number | null | undefined): string =>
  v === null || v === undefined ? '' : String(v);

/** [field, label, input attributes and hint]: a form's plain text and number fields, in the order shown. */
export type TextFieldSpec<K extends string> = readonly [
  K,
  string,
  { required?: boolean; maxLength?: number; inputMode?: 'numeric' | 'text'; hint?: string },
];

/** The text fields of `specs`, each labelled, with its 422 (from `errors`) under it. */
export function TextFields<K extends string>(props: {
  specs: readonly TextFieldSpec<K>[];
  draft: Record<K, string>;
  set: (k: K) => (v: string) => void;
  errors: Record<string, string>;
}) {
  return (
    <>
      {props.specs.map(([name, label, { hint, ...attrs }]) => (
        <Field
          key={name}
          label={label}
          name={name}
          value={props.draft[name]}
          onValue={props.set(name)}
          error={props.errors[name]}
          hint={hint}
          {...attrs}
        />
      ))}
    </>
  );
}

/** A labelled multi-line field spanning the form's grid, with a hint and the API's 422 under it. */
export function TextArea(props: {
  label: string;
  name: string;
  value: string;
  onValue: (v: string) => void;
  hint?: string;
  error?: string;
  rows?: number;
}) {
  const id = `f-${props.name}`;
  const described =
    [props.error ? `${id}-error` : '', props.hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={props.error ? 'field invalid wide' : 'field wide'}>
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 3}
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described}
      />
      {props.hint && <small id={`${id}-hint`}>{props.hint}</small>}
      {props.error && (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
