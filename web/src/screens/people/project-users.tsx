import { useState } from 'preact/hooks';
import { api, ok, type ProjectUser } from '../../api';
import { Alert, ConfirmButton, Field, Loaded, message, useLoad, useSubmit } from '../../ui';

/**
 * SPEC's project users (`/project-users`): people the project records (owners of services, contacts)
 * who need no login; not members.
 */
export function ProjectUsers(props: { projectId: string }) {
  const users = useLoad(
    (signal) => ok(api.GET('/project-users', { params: { query: { project_id: props.projectId } }, signal })),
    [props.projectId],
  );
  const [error, setError] = useState('');
  const remove = (u: ProjectUser) => async () => {
    setError('');
    try {
      await ok(api.DELETE('/project-users/{project_user_id}', { params: { path: { project_user_id: u.id } } }));
      users.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <>
      <p class="muted">People the catalog names (owners of services, contacts) who do not sign in.</p>
      <Alert>{error}</Alert>
      <Loaded state={users} label="project users">
        {(list) =>
          list.length ? (
            <ul class="cards">
              {list.map((u) => (
                <li key={u.id}>
                  <span>
                    <strong>{u.name}</strong>{' '}
                    <span class="muted">{[u.job_title, u.email, u.phone].filter(Boolean).join(' · ')}</span>
                  </span>
                  <ConfirmButton
                    label="Delete"
                    subject={`project user ${u.name}`}
                    confirm={`Delete project user ${u.name}?`}
                    onConfirm={remove(u)}
                  />
                </li>
              ))}
            </ul>
          ) : (
            <p>No project user yet.</p>
          )
        }
      </Loaded>
      <NewProjectUser projectId={props.projectId} onAdded={users.reload} />
    </>
  );
}

function NewProjectUser(props: { projectId: string; onAdded: () => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [jobTitle, setJobTitle] = useState('');
  const { submit, busy, error, fields } = useSubmit(async () => {
    await ok(
      api.POST('/project-users', {
        body: {
          project_id: props.projectId,
          name: name.trim(),
          email: email.trim() || null,
          job_title: jobTitle.trim() || null,
        },
      }),
    );
    setName('');
    setEmail('');
    setJobTitle('');
    props.onAdded();
  }, ['name', 'email', 'job_title']);
  return (
    <form onSubmit={submit} aria-labelledby="project-user-title">
      <h3 id="project-user-title">Add a project user</h3>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Field
          label="Full name"
          name="project-user-name"
          required
          maxLength={200}
          value={name}
          onValue={setName}
          error={fields.name}
        />
        <Field
          label="Their e-mail"
          name="project-user-email"
          type="email"
          autocomplete="off"
          value={email}
          onValue={setEmail}
          error={fields.email}
          hint="Optional."
        />
        <Field
          label="Their job title"
          name="project-user-job"
          autocomplete="off"
          value={jobTitle}
          onValue={setJobTitle}
          error={fields.job_title}
          hint="Optional."
        />
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Add project user
      </button>
    </form>
  );
}
