import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, signedIn } from '../api';
import { to } from '../links';
import { useSession } from '../session';
import { Alert, Field, Page, useSubmit } from '../ui';

/** Creates an account (the Free plan) and signs it in. */
export function Register() {
  const { route } = useLocation();
  const session = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { submit, busy, error, fields } = useSubmit(async () => {
    await ok(api.POST('/auth/register', { body: { email, password, ...(name.trim() ? { name: name.trim() } : {}) } }));
    await signedIn(await ok(api.POST('/auth/login', { body: { email, password } })));
    await session.signedIn();
    route(to.projects, true);
  }, ['name', 'email', 'password']);

  return (
    <Page title="Create an account">
      <form class="narrow" onSubmit={submit}>
        <Alert>{error}</Alert>
        <Field
          label="Name"
          name="name"
          autocomplete="name"
          value={name}
          onValue={setName}
          error={fields.name}
          hint="Optional."
        />
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
          error={fields.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minLength={8}
          value={password}
          onValue={setPassword}
          error={fields.password}
          hint="At least 8 characters."
        />
        <button type="submit" class="primary" disabled={busy}>
          Create account
        </button>
      </form>
      <p>
        Already have an account? <a href={to.signIn()}>Sign in</a>.
      </p>
    </Page>
  );
}
