import { useState } from 'preact/hooks';
import { api, ok, type EnvRoleName, type Environment, type Invitation } from '../../api';
import { Alert, ConfirmButton, Field, Loaded, message, Select, useLoad, useSubmit } from '../../ui';
import { ENV_ROLES } from './project-data';

/** SPEC: an invitation is valid 24 hours (a resend starts them again). */
const VALID_HOURS = 24;

const stateOf = (i: Invitation, now: number): 'accepted' | 'expired' | 'pending' =>
  i.accepted ? 'accepted' : Date.parse(i.expires_at) <= now ? 'expired' : 'pending';

/** The project's invitations (owners only): invite by e-mail, the list with resend and revoke. */
export function Invitations(props: { projectId: string; environments: Environment[] }) {
  const invites = useLoad(
    (signal) => ok(api.GET('/invites', { params: { query: { project_id: props.projectId } }, signal })),
    [props.projectId],
  );
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const act = (action: () => Promise<string>) => async () => {
    setError('');
    setNote('');
    try {
      setNote(await action());
      invites.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  const envName = (id: string | null) => props.environments.find((e) => e.id === id)?.name;
  const now = Date.now();
  return (
    <>
      <InviteForm
        projectId={props.projectId}
        environments={props.environments}
        onSent={(email) => {
          setNote(`Invitation sent to ${email}; its link works for ${VALID_HOURS} hours.`);
          invites.reload();
        }}
      />
      <Alert>{error}</Alert>
      {note && (
        <p role="status" class="ok">
          {note}
        </p>
      )}
      <Loaded state={invites} label="invitations">
        {(list) =>
          list.length ? (
            <ul class="cards invitations">
              {list.map((i) => {
                const state = stateOf(i, now);
                const scope = envName(i.environment_id);
                return (
                  <li key={i.id} data-state={state}>
                    <span>
                      <strong>{i.invited_email}</strong> <span class={`badge ${state}`}>{state}</span>
                      <br />
                      <span class="muted">
                        {scope ? `${i.role} of ${scope}` : 'member'}; sent {new Date(i.created_at).toLocaleString()}
                        {state === 'accepted' && i.accepted_at
                          ? `, accepted ${new Date(i.accepted_at).toLocaleString()}`
                          : `, ${state === 'expired' ? 'expired' : 'expires'} ${new Date(i.expires_at).toLocaleString()}`}
                      </span>
                    </span>
                    {state !== 'accepted' && (
                      <span class="row-actions">
                        <button
                          type="button"
                          aria-label={`Resend the invitation to ${i.invited_email}`}
                          onClick={act(async () => {
                            await ok(
                              api.POST('/invites/{invite_id}/resend', { params: { path: { invite_id: i.id } } }),
                            );
                            return `Sent again to ${i.invited_email}: the earlier link no longer works.`;
                          })}
                        >
                          Resend
                        </button>
                        {state === 'pending' && (
                          <ConfirmButton
                            label="Revoke"
                            subject={`the invitation to ${i.invited_email}`}
                            confirm={`Revoke the invitation to ${i.invited_email}? Its link stops working.`}
                            onConfirm={act(async () => {
                              await ok(api.DELETE('/invites/{invite_id}', { params: { path: { invite_id: i.id } } }));
                              return `The invitation to ${i.invited_email} is revoked.`;
                            })}
                          />
                        )}
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          ) : (
            <p>No invitation yet.</p>
          )
        }
      </Loaded>
    </>
  );
}

function InviteForm(props: { projectId: string; environments: Environment[]; onSent: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [envId, setEnvId] = useState('');
  const [role, setRole] = useState<EnvRoleName>('viewer');
  const { submit, busy, error, fields } = useSubmit(async () => {
    const sent = await ok(
      api.POST('/invites', {
        body: {
          project_id: props.projectId,
          invited_email: email.trim(),
          first_name: firstName.trim() || null,
          last_name: lastName.trim() || null,
          ...(envId ? { environment_id: envId, role } : {}),
        },
      }),
    );
    setEmail('');
    setFirstName('');
    setLastName('');
    props.onSent(sent.invited_email);
  }, ['invited_email', 'first_name', 'last_name', 'environment_id', 'role']);
  return (
    <form onSubmit={submit} aria-labelledby="invite-title">
      <h3 id="invite-title">Invite someone</h3>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Field
          label="E-mail address to invite"
          name="invited_email"
          type="email"
          autocomplete="off"
          required
          value={email}
          onValue={setEmail}
          error={fields.invited_email}
        />
        <Field
          label="First name"
          name="first_name"
          autocomplete="off"
          value={firstName}
          onValue={setFirstName}
          error={fields.first_name}
          hint="Optional, for the greeting."
        />
        <Field
          label="Last name"
          name="last_name"
          autocomplete="off"
          value={lastName}
          onValue={setLastName}
          error={fields.last_name}
          hint="Optional."
        />
        <Select
          label="Environment role"
          name="invite-environment"
          value={envId}
          onValue={setEnvId}
          error={fields.environment_id}
          options={[
            ['', 'None: a member who reads every environment'],
            ...props.environments.map((e): [string, string] => [e.id, `A role in ${e.name}`]),
          ]}
        />
        {envId && (
          <Select
            label="Role"
            name="invite-role"
            value={role}
            onValue={(v) => setRole(v as EnvRoleName)}
            options={ENV_ROLES}
            error={fields.role}
          />
        )}
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Send invitation
      </button>
    </form>
  );
}
