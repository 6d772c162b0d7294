import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/**
 * A screen: sets the document title and moves focus to its heading when it opens (a screen reader
 * hears where a link or the back button went; keyboard users start from the top of the new screen).
 */
export function Page(props: {
  title: string;
  heading?: ComponentChildren;
  actions?: ComponentChildren;
  children?: ComponentChildren;
  wide?: boolean;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Infrastructure Catalog`;
    heading.current?.focus({ preventScroll: false });
  }, [props.title]);
  return (
    <section class={props.wide ? 'page wide' : 'page'} aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.heading ?? props.title}
        </h1>
        {props.actions && <div class="actions">{props.actions}</div>}
      </div>
      {props.children}
    </section>
  );
}

/** The input attributes the forms use. */
interface InputProps {
  type?: 'text' | 'email' | 'password' | 'search' | 'url' | 'date';
  autocomplete?: string;
  required?: boolean;
  readOnly?: boolean;
  autoFocus?: boolean;
  maxLength?: number;
  minLength?: number;
  inputMode?: 'numeric' | 'text';
}

/** A labelled input with the API's complaint about it (a 422 item naming this field) right under it. */
export function Field(
  props: InputProps & {
    label: string;
    name: string;
    value: string;
    onValue: (v: string) => void;
    error?: string;
    hint?: string;
  },
) {
  const { label, name, value, onValue, error, hint, ...rest } = props;
  const id = `f-${name}`;
  const described = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        {...(rest as object)}
      />
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled select; `options` are [value, label] pairs. */
export function Select(props: {
  label: string;
  name: string;
  value: string;
  onValue: (v: string) => void;
  options: [string, string][];
  error?: string;
  required?: boolean;
}) {
  const id = `f-${props.name}`;
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        required={props.required}
        onChange={(e) => props.onValue(e.currentTarget.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${id}-error` : undefined}
      >
        {props.options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      {props.error && (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** What went wrong with the last action, announced to screen readers. */
export function Alert(props: { children?: ComponentChildren }) {
  if (!props.children) return null;
  return (
    <p class="alert" role="alert">
      {props.children}
    </p>
  );
}

/** A refusal as a sentence: SPEC's detail, or the 422 items that name no field of the form. */
export function message(err: unknown, shownFields: string[] = []): string {
  if (err instanceof ApiError) {
    if (err.issues.length) {
      const rest = Object.entries(err.fields).filter(([f]) => !shownFields.includes(f));
      return rest.length
        ? rest.map(([f, m]) => (f ? `${f}: ${m}` : m)).join('; ')
        : 'Please correct the fields marked below.';
    }
    // An answer without SPEC's detail (a proxy's error page) is not shown as it is.
    return typeof (err.body as { detail?: unknown } | undefined)?.detail === 'string'
      ? err.detail
      : `The service answered ${err.status}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** What a form shows of a refusal: messages under the fields they name, and a sentence above. */
export interface Explained {
  fields?: Record<string, string>;
  error?: string;
  /** What to do about it, shown under the sentence (a link to where it is done). */
  remedy?: ComponentChildren;
}

/**
 * A form's submit: busy while `run` runs; a refusal shown as the API's 422 next to the fields it
 * names (`shownFields`) and a sentence for the rest, unless `explain` says otherwise.
 */
export function useSubmit(run: () => Promise<void>, shownFields: string[], explain?: (err: unknown) => Explained) {
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<Explained>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setShown({});
    try {
      await run();
    } catch (err) {
      setShown(
        explain?.(err) ?? { fields: err instanceof ApiError ? err.fields : {}, error: message(err, shownFields) },
      );
    } finally {
      setBusy(false);
    }
  };
  return {
    submit,
    busy,
    error: shown.error,
    remedy: shown.remedy,
    fields: shown.fields ?? {},
    clear: () => setShown({}),
  };
}

/** A button's action (not a form's): busy while one runs, a refusal as a sentence; `act` runs any of a screen's actions. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const act = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return { act, busy, error, setError };
}

/** Loads something for a screen; `reload` runs it again. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ data: s.data, loading: true }));
    load(abort.signal).then(
      (data) => !abort.signal.aborted && setState({ data, loading: false }),
      (error) => !abort.signal.aborted && setState({ error, loading: false }),
    );
    return () => abort.abort();
    // Not `load`: it is a new function on every render; the caller's `deps` say when to load again.
  }, [...deps, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}

/** Loading, its failure, or the content. */
export function Loaded<T>(props: {
  state: { data?: T; error?: unknown; loading: boolean };
  children: (data: T) => ComponentChildren;
  label?: string;
}) {
  if (props.state.error) return <Alert>{message(props.state.error)}</Alert>;
  if (props.state.data === undefined)
    return (
      <p role="status" class="muted">
        Loading {props.label ?? ''}…
      </p>
    );
  return <>{props.children(props.state.data)}</>;
}

/** A destructive action behind a second, explicit confirmation. */
export function ConfirmButton(props: {
  label: string;
  confirm: string;
  onConfirm: () => Promise<void> | void /** what it acts on, when a list has many: the button's accessible name is "<label> <subject>" */;
  subject?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        class="danger"
        aria-label={props.subject ? `${props.label} ${props.subject}` : undefined}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={props.confirm}>
      <span>{props.confirm}</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        Yes, {props.label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Saves a file the page made (an exported picture, recovery codes) through the browser's download. */
export function download(name: string, blob: Blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
