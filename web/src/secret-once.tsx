import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * A secret the service returns only once (a webhook's signing secret, an API key's value): shown in a
 * read-only field with a Copy button; `children` say what it is for, `actions` sit beside Copy.
 */
export function SecretOnce(props: {
  id: string;
  title: string;
  label: string;
  value: string;
  dismiss: string;
  onDismiss: () => void;
  children?: ComponentChildren;
  actions?: ComponentChildren;
}) {
  const [copied, setCopied] = useState('');
  const copy = () =>
    (navigator.clipboard?.writeText(props.value) ?? Promise.reject(new Error('no clipboard'))).then(
      () => setCopied('Copied.'),
      () => setCopied('Copying was not allowed: select the value and copy it instead.'),
    );
  return (
    <div class="secret-once" role="region" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
      <label for={props.id}>{props.label}</label>
      <input id={props.id} class="secret" readOnly value={props.value} onFocus={(e) => e.currentTarget.select()} />
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        {props.actions}
        <button type="button" onClick={props.onDismiss}>
          {props.dismiss}
        </button>
        {copied && <span role="status">{copied}</span>}
      </div>
    </div>
  );
}
