import { useState } from 'preact/hooks';
import { api, ok } from '../../api';
import { Alert, download, Loaded, useLoad, useSubmit } from '../../ui';
import { explainProof, ProofFields, useProof } from './proof';

/**
 * Recovery codes: how many are left, and a new set (replacing the old one) shown once, to copy or
 * download; the API keeps only their hashes.
 */
export function RecoveryCodes(props: { hasAuthenticator: boolean }) {
  const status = useLoad((signal) => ok(api.GET('/auth/totp/recovery', { signal })), []);
  const proof = useProof();
  const [codes, setCodes] = useState<string[]>();
  const [copied, setCopied] = useState('');
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      setCodes((await ok(api.POST('/auth/totp/recovery/regenerate', { body: proof.body() }))).codes);
      proof.reset();
      status.reload();
    },
    [],
    (err) => explainProof(err),
  );
  const text = () => `Infrastructure Catalog recovery codes (each works once)\n\n${(codes ?? []).join('\n')}\n`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text());
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the codes, or download them.');
    }
  };
  return (
    <>
      <Loaded state={status} label="recovery codes">
        {(s) => (
          <p>
            {s.total ? `${s.unused} of ${s.total} recovery codes unused.` : 'No recovery codes yet.'} A recovery code
            signs you in (once) when your authenticator is not at hand.
          </p>
        )}
      </Loaded>
      {codes && (
        <div class="codes" role="region" aria-label="Your new recovery codes">
          <p class="ok" role="status">
            Your new recovery codes: save them now, they are not shown again. The previous ones no longer work.
          </p>
          <ol class="code-list">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ol>
          <div class="row-actions">
            <button type="button" onClick={copy}>
              Copy codes
            </button>
            <button
              type="button"
              onClick={() => download('recovery-codes.txt', new Blob([text()], { type: 'text/plain' }))}
            >
              Download codes
            </button>
            <button
              type="button"
              onClick={() => {
                setCodes(undefined);
                setCopied('');
              }}
            >
              I have saved them
            </button>
            {copied && <span role="status">{copied}</span>}
          </div>
        </div>
      )}
      <form class="narrow" onSubmit={submit}>
        <Alert>{error}</Alert>
        <ProofFields prefix="recovery" proof={proof} withCode={props.hasAuthenticator} fields={fields} />
        <button type="submit" class="primary" disabled={busy}>
          Generate new recovery codes
        </button>
      </form>
    </>
  );
}
