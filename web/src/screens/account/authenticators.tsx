import { useState } from 'preact/hooks';
import { api, ok, ApiError, type Authenticator, type ProvisionedSecret } from '../../api';
import { Alert, Field, message, useSubmit } from '../../ui';
import { explainProof, ProofFields, useProof } from './proof';

/** SPEC: at most three authenticators per account. */
const MAX_AUTHENTICATORS = 3;
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** The account's authenticator apps: the list, removal (with proof of identity) and a new one. */
export function Authenticators(props: { devices: Authenticator[]; onChange: () => void }) {
  const [adding, setAdding] = useState<ProvisionedSecret>();
  const [added, setAdded] = useState('');
  const [error, setError] = useState('');
  const start = async () => {
    setError('');
    setAdded('');
    try {
      setAdding(await ok(api.POST('/auth/totp/provision')));
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <>
      {props.devices.length ? (
        <ul class="cards">
          {props.devices.map((d) => (
            <DeviceRow key={d.id} device={d} onRemoved={props.onChange} />
          ))}
        </ul>
      ) : (
        <p>
          No authenticator yet: signing in asks only for your password. Add one to ask for a code from your phone too.
        </p>
      )}
      <Alert>{error}</Alert>
      {added && (
        <p role="status" class="ok">
          {added} is added: signing in now asks for its code. Keep recovery codes too, in case you lose the phone.
        </p>
      )}
      {adding ? (
        <Enrol
          secret={adding}
          onDone={(name) => {
            setAdding(undefined);
            setAdded(name);
            props.onChange();
          }}
          onCancel={() => setAdding(undefined)}
        />
      ) : props.devices.length >= MAX_AUTHENTICATORS ? (
        <p class="muted">
          You have {MAX_AUTHENTICATORS} authenticators, the most an account can have: remove one to add another.
        </p>
      ) : (
        <button type="button" class="primary" onClick={start}>
          Add an authenticator
        </button>
      )}
    </>
  );
}

/** A listed authenticator; removing it asks for the password and a code (of this or another authenticator, or a recovery code). */
function DeviceRow(props: { device: Authenticator; onRemoved: () => void }) {
  const { device } = props;
  const [removing, setRemoving] = useState(false);
  const proof = useProof();
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      await ok(
        api.DELETE('/auth/totp/devices/{device_id}', {
          params: { path: { device_id: device.id } },
          body: proof.body(),
        }),
      );
      props.onRemoved();
    },
    [],
    (err) => explainProof(err),
  );
  return (
    <li>
      <span>
        <strong>{device.name}</strong>{' '}
        <span class="muted">
          added {when(device.created_at)}, last used {when(device.last_used_at)}
        </span>
      </span>
      {removing ? (
        <form class="inline-form" onSubmit={submit} aria-label={`Remove authenticator ${device.name}`}>
          <Alert>{error}</Alert>
          <ProofFields prefix={`remove-${device.id}`} proof={proof} withCode fields={fields} />
          <button type="submit" class="danger" disabled={busy}>
            Remove {device.name}
          </button>
          <button type="button" onClick={() => setRemoving(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button
          type="button"
          class="danger"
          onClick={() => setRemoving(true)}
          aria-label={`Remove authenticator ${device.name}`}
        >
          Remove
        </button>
      )}
    </li>
  );
}

/** SPEC's refusals of a new authenticator, by the field they are about. */
const VERIFY_FIELDS: Record<string, 'name' | 'code'> = {
  'Device name is required': 'name',
  'Invalid TOTP code': 'code',
};

/** Scan the QR code (or type the key), then prove it works with the code the app shows. */
function Enrol(props: { secret: ProvisionedSecret; onDone: (name: string) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      await ok(
        api.POST('/auth/totp/verify', {
          body: { secret: props.secret.secret, code: code.replace(/\s+/g, ''), name: name.trim() },
        }),
      );
      props.onDone(name.trim());
    },
    ['name', 'code'],
    (err) => {
      if (err instanceof ApiError && VERIFY_FIELDS[err.detail]) {
        const field = VERIFY_FIELDS[err.detail];
        return {
          fields: {
            [field]:
              field === 'code'
                ? 'That code was not accepted: type the six digits the app shows now (check that the phone’s clock is right).'
                : err.detail,
          },
        };
      }
      return { fields: err instanceof ApiError ? err.fields : {}, error: message(err, ['name', 'code']) };
    },
  );
  return (
    <form class="enrol" onSubmit={submit}>
      <fieldset>
        <legend>Add an authenticator</legend>
        <div class="enrol-grid">
          <img
            class="qr"
            src={props.secret.qrcode_data_url}
            width={200}
            height={200}
            alt={`QR code for ${props.secret.issuer} (${props.secret.account_name}): scan it with your authenticator app`}
          />
          <div>
            <ol>
              <li>
                Scan the QR code with an authenticator app, or enter this key in it by hand:{' '}
                <code id="totp-secret" class="secret">
                  {props.secret.secret}
                </code>
              </li>
              <li>Give it a name and type the six-digit code the app shows.</li>
            </ol>
            <Alert>{error}</Alert>
            <Field
              label="Name of this authenticator"
              name="device-name"
              required
              maxLength={100}
              value={name}
              onValue={setName}
              error={fields.name}
              hint="For example: Work phone."
            />
            <Field
              label="Code from the app"
              name="device-code"
              autocomplete="one-time-code"
              inputMode="numeric"
              required
              value={code}
              onValue={setCode}
              error={fields.code}
            />
            <div class="row-actions">
              <button type="submit" class="primary" disabled={busy}>
                Confirm and add
              </button>
              <button type="button" onClick={props.onCancel}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      </fieldset>
    </form>
  );
}
