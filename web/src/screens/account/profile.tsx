import { useState } from 'preact/hooks';
import { api, ok, type Account } from '../../api';
import { useSession } from '../../session';
import { Alert, Field, useSubmit } from '../../ui';
import { explainProof, ProofFields, useProof } from './proof';

/** The account's own details (PATCH /auth/me): name, phone, job title, time zone. */
export function Profile(props: { me: Account }) {
  const session = useSession();
  const [name, setName] = useState(props.me.name ?? '');
  const [phone, setPhone] = useState(props.me.phone ?? '');
  const [jobTitle, setJobTitle] = useState(props.me.job_title ?? '');
  const [timezone, setTimezone] = useState(props.me.timezone ?? '');
  const [saved, setSaved] = useState(false);
  const orNull = (v: string) => v.trim() || null;
  const { submit, busy, error, fields } = useSubmit(async () => {
    setSaved(false);
    await ok(
      api.PATCH('/auth/me', {
        body: { name: orNull(name), phone: orNull(phone), job_title: orNull(jobTitle), timezone: orNull(timezone) },
      }),
    );
    await session.signedIn();
    setSaved(true);
  }, ['name', 'phone', 'job_title', 'timezone']);
  return (
    <form onSubmit={submit}>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Field
          label="Name"
          name="name"
          autocomplete="name"
          maxLength={200}
          value={name}
          onValue={setName}
          error={fields.name}
        />
        <Field label="Phone" name="phone" autocomplete="tel" value={phone} onValue={setPhone} error={fields.phone} />
        <Field
          label="Job title"
          name="job_title"
          autocomplete="organization-title"
          value={jobTitle}
          onValue={setJobTitle}
          error={fields.job_title}
        />
        <Field
          label="Time zone"
          name="timezone"
          value={timezone}
          onValue={setTimezone}
          error={fields.timezone}
          hint="For example Europe/Paris."
        />
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Save profile
      </button>
      {saved && (
        <span role="status" class="saved">
          Saved.
        </span>
      )}
    </form>
  );
}

/**
 * A new e-mail address: the API asks for the password (and a code with an authenticator), mails a link to
 * the new address, and changes it only when that link is opened (`/confirm-email`).
 */
export function EmailChange(props: { me: Account; hasAuthenticator: boolean }) {
  const [email, setEmail] = useState('');
  const proof = useProof();
  const [sentTo, setSentTo] = useState('');
  const { submit, busy, error, fields } = useSubmit(
    async () => {
      setSentTo('');
      await ok(api.PATCH('/auth/me', { body: { email: email.trim(), ...proof.body() } }));
      setSentTo(email.trim());
      setEmail('');
      proof.reset();
    },
    ['email'],
    (err) => explainProof(err, ['email']),
  );
  return (
    <form class="narrow" onSubmit={submit}>
      <p>
        Your address is <strong>{props.me.email}</strong>.
      </p>
      <Alert>{error}</Alert>
      {sentTo && (
        <p role="status" class="ok">
          We sent a link to {sentTo}: your address changes when you open it (within 60 minutes).
        </p>
      )}
      <Field
        label="New e-mail address"
        name="new-email"
        type="email"
        autocomplete="email"
        required
        value={email}
        onValue={setEmail}
        error={fields.email}
      />
      <ProofFields prefix="email" proof={proof} withCode={props.hasAuthenticator} fields={fields} />
      <button type="submit" class="primary" disabled={busy}>
        Change e-mail address
      </button>
    </form>
  );
}
