import { useState } from 'preact/hooks';
import { api, ok, type CustomRole, type Member, type Environment, type RoleAssignment } from '../../api';
import { to } from '../../links';
import { Alert, ConfirmButton, Loaded, message, Page, Select, useLoad, useSubmit } from '../../ui';
import { emailOf, useProjectPeople } from './project-data';
import { PERMISSIONS, RoleForm } from './role-form';

/** `/p/:projectId/roles`: the project's custom roles; create, edit, delete, and who holds each. */
export function Roles(props: { projectId: string }) {
  const people = useProjectPeople(props.projectId);
  const roles = useLoad(
    async (signal) => {
      const list = await ok(
        api.GET('/projects/{project_id}/custom-roles', { params: { path: { project_id: props.projectId } }, signal }),
      );
      return Promise.all(
        list.map(async (role) => ({
          role,
          assignments: await ok(
            api.GET('/projects/{project_id}/custom-roles/{role_id}/assignments', {
              params: { path: { project_id: props.projectId, role_id: role.id } },
              signal,
            }),
          ),
        })),
      );
    },
    [props.projectId],
  );
  const name = people.data?.project?.name ?? 'Project';
  return (
    <Page title={`Custom roles of ${name}`}>
      <p class="muted">
        A custom role is a set of permissions given to members, for the whole project or one environment, besides their{' '}
        <a href={to.members(props.projectId)}>environment roles</a>. How many a project may have depends on the owner's
        plan.
      </p>
      <Loaded state={people} label="members">
        {(data) => (
          <Loaded state={roles} label="custom roles">
            {(list) =>
              list.length ? (
                <ul class="cards roles">
                  {list.map(({ role, assignments }) => (
                    <RoleCard
                      key={role.id}
                      role={role}
                      assignments={assignments}
                      members={data.members}
                      environments={data.environments}
                      onChange={roles.reload}
                    />
                  ))}
                </ul>
              ) : (
                <p>No custom role yet.</p>
              )
            }
          </Loaded>
        )}
      </Loaded>
      <h2>New custom role</h2>
      <RoleForm
        idPrefix="new-role"
        button="Create role"
        onSave={async (body) => {
          await ok(
            api.POST('/projects/{project_id}/custom-roles', {
              params: { path: { project_id: props.projectId } },
              body,
            }),
          );
          roles.reload();
        }}
      />
    </Page>
  );
}

function RoleCard(props: {
  role: CustomRole;
  assignments: RoleAssignment[];
  members: Member[];
  environments: Environment[];
  onChange: () => void;
}) {
  const { role } = props;
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState('');
  const path = { project_id: role.project_id, role_id: role.id };
  const scopeName = (envId: string | null) =>
    envId ? (props.environments.find((e) => e.id === envId)?.name ?? 'an environment') : 'the whole project';
  const run = (action: () => Promise<void>) => async () => {
    setError('');
    try {
      await action();
      props.onChange();
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <li class="role">
      {editing ? (
        <RoleForm
          idPrefix={`edit-${role.id}`}
          role={role}
          button="Save role"
          onCancel={() => setEditing(false)}
          onSave={async (body) => {
            await ok(api.PATCH('/projects/{project_id}/custom-roles/{role_id}', { params: { path }, body }));
            setEditing(false);
            props.onChange();
          }}
        />
      ) : (
        <>
          <div class="role-head">
            <h3>{role.name}</h3>
            <span class="row-actions">
              <button type="button" onClick={() => setEditing(true)} aria-label={`Edit role ${role.name}`}>
                Edit
              </button>
              <ConfirmButton
                label="Delete"
                subject={`role ${role.name}`}
                confirm={`Delete role ${role.name}? Its holders lose its permissions.`}
                onConfirm={run(async () => {
                  await ok(api.DELETE('/projects/{project_id}/custom-roles/{role_id}', { params: { path } }));
                })}
              />
            </span>
          </div>
          {role.description && <p>{role.description}</p>}
          <p class="muted">{role.permissions.map((p) => PERMISSIONS[p] ?? p).join('; ')}</p>
          <Alert>{error}</Alert>
          <h4>Held by</h4>
          {props.assignments.length ? (
            <ul class="plain">
              {props.assignments.map((a) => (
                <li key={a.id}>
                  {emailOf(props.members, a.user_id)} <span class="muted">in {scopeName(a.environment_id)}</span>{' '}
                  <button
                    type="button"
                    aria-label={`Withdraw ${role.name} from ${emailOf(props.members, a.user_id)}`}
                    onClick={run(async () => {
                      await ok(
                        api.DELETE('/projects/{project_id}/custom-roles/{role_id}/assignments/{user_id}', {
                          params: { path: { ...path, user_id: a.user_id } },
                        }),
                      );
                    })}
                  >
                    Withdraw
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>Nobody yet.</p>
          )}
          <AssignForm
            role={role}
            members={props.members}
            environments={props.environments}
            onAssigned={props.onChange}
          />
        </>
      )}
    </li>
  );
}

function AssignForm(props: {
  role: CustomRole;
  members: Member[];
  environments: Environment[];
  onAssigned: () => void;
}) {
  const [userId, setUserId] = useState('');
  const [envId, setEnvId] = useState('');
  const { submit, busy, error, fields } = useSubmit(async () => {
    await ok(
      api.POST('/projects/{project_id}/custom-roles/{role_id}/assignments', {
        params: { path: { project_id: props.role.project_id, role_id: props.role.id } },
        body: { user_id: userId, environment_id: envId || null },
      }),
    );
    setUserId('');
    props.onAssigned();
  }, ['user_id', 'environment_id']);
  const id = props.role.id;
  return (
    <form class="inline-form" onSubmit={submit} aria-label={`Give ${props.role.name} to a member`}>
      <Alert>{error}</Alert>
      <Select
        label={`Give ${props.role.name} to`}
        name={`assign-${id}-user`}
        required
        value={userId}
        onValue={setUserId}
        error={fields.user_id}
        options={[['', 'Choose a member…'], ...props.members.map((m): [string, string] => [m.user_id, m.email])]}
      />
      <Select
        label="In"
        name={`assign-${id}-env`}
        value={envId}
        onValue={setEnvId}
        error={fields.environment_id}
        options={[['', 'The whole project'], ...props.environments.map((e): [string, string] => [e.id, e.name])]}
      />
      <button type="submit" disabled={busy || !userId}>
        Assign
      </button>
    </form>
  );
}
