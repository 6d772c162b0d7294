import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import {
  api,
  ok,
  type CustomRole,
  type EnvRole,
  type EnvRoleName,
  type Environment,
  type Member,
  type RoleAssignment,
} from '../../api';
import { to } from '../../links';
import { useSession } from '../../session';
import { Alert, ConfirmButton, Loaded, message, Page, Select, useLoad } from '../../ui';
import { Invitations } from './invitations';
import { ProjectUsers } from './project-users';
import { ENV_ROLES, useProjectPeople, type ProjectPeople } from './project-data';

/** Who holds what: environment roles by environment, custom-role assignments by role. */
interface Grants {
  envRoles: EnvRole[];
  roles: { role: CustomRole; assignments: RoleAssignment[] }[];
}

async function loadGrants(projectId: string, environments: Environment[], signal: AbortSignal): Promise<Grants> {
  const envRoles = (
    await Promise.all(
      environments.map((e) =>
        ok(api.GET('/environments/{environment_id}/roles', { params: { path: { environment_id: e.id } }, signal })),
      ),
    )
  ).flat();
  const customRoles = await ok(
    api.GET('/projects/{project_id}/custom-roles', { params: { path: { project_id: projectId } }, signal }),
  );
  const roles = await Promise.all(
    customRoles.map(async (role) => ({
      role,
      assignments: await ok(
        api.GET('/projects/{project_id}/custom-roles/{role_id}/assignments', {
          params: { path: { project_id: projectId, role_id: role.id } },
          signal,
        }),
      ),
    })),
  );
  return { envRoles, roles };
}

/** `/p/:projectId/members`: the members and their roles, invitations, and the project's people without a login. */
export function Members(props: { projectId: string }) {
  const people = useProjectPeople(props.projectId);
  const grants = useLoad(
    (signal) =>
      people.data ? loadGrants(props.projectId, people.data.environments, signal) : new Promise<never>(() => {}),
    [props.projectId, people.data],
  );
  const name = people.data?.project?.name ?? 'Project';
  const [removed, setRemoved] = useState('');
  return (
    <Page title={`Members of ${name}`}>
      <Loaded state={people} label="members">
        {(data) => (
          <>
            <h2>Members</h2>
            <p class="muted">
              Every member reads every environment. An environment role lets them change it: a viewer reads, a manager
              edits its catalog, an administrator also manages its roles.{' '}
              <a href={to.roles(props.projectId)}>Custom roles</a> grant finer permissions. Removing a member (or
              leaving) ends their access at once and takes their roles with it; what they created stays. The owner whose
              plan the project uses cannot leave it.
            </p>
            {removed && (
              <p class="ok" role="status">
                {removed}
              </p>
            )}
            <Loaded state={grants} label="roles">
              {(g) => (
                <ul class="cards members">
                  {data.members.map((m) => (
                    <MemberRow
                      key={m.user_id}
                      projectId={props.projectId}
                      member={m}
                      data={data}
                      grants={g}
                      onChange={grants.reload}
                      onRemoved={(text) => {
                        setRemoved(text);
                        people.reload();
                      }}
                    />
                  ))}
                </ul>
              )}
            </Loaded>
            <h2>Invitations</h2>
            {data.project?.is_owner ? (
              <Invitations projectId={props.projectId} environments={data.environments} />
            ) : (
              <p>Only the project's owners invite people and see the invitations.</p>
            )}
            <h2>Project users</h2>
            <ProjectUsers projectId={props.projectId} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function MemberRow(props: {
  projectId: string;
  member: Member;
  data: ProjectPeople;
  grants: Grants;
  onChange: () => void;
  onRemoved: (text: string) => void;
}) {
  const { me } = useSession();
  const { route } = useLocation();
  const { member, data, grants } = props;
  const held = (envId: string) =>
    grants.envRoles.find((r) => r.environment_id === envId && r.user_id === member.user_id)?.role ?? '';
  const [chosen, setChosen] = useState<Record<string, string>>(() =>
    Object.fromEntries(data.environments.map((e) => [e.id, held(e.id)])),
  );
  const [error, setError] = useState('');
  const [saved, setSaved] = useState('');
  const customRoles = grants.roles.filter((r) => r.assignments.some((a) => a.user_id === member.user_id));
  const isMe = me?.id === member.user_id;
  const changed = data.environments.filter((e) => (chosen[e.id] ?? '') !== held(e.id));

  /** Each changed environment: an upsert of the role, or its removal for "no role". */
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    setSaved('');
    try {
      for (const env of changed) {
        const role = chosen[env.id];
        const path = { environment_id: env.id };
        if (role)
          await ok(
            api.POST('/environments/{environment_id}/roles', {
              params: { path },
              body: { user_id: member.user_id, role: role as EnvRoleName },
            }),
          );
        else
          await ok(
            api.DELETE('/environments/{environment_id}/roles/{user_id}', {
              params: { path: { ...path, user_id: member.user_id } },
            }),
          );
      }
      setSaved('Roles saved.');
      props.onChange();
    } catch (err) {
      setError(message(err));
    }
  };
  /** Ends the membership (their roles go with it); leaving your own project takes you to your projects. */
  const remove = async () => {
    setError('');
    try {
      await ok(
        api.DELETE('/projects/{project_id}/members/{user_id}', {
          params: { path: { project_id: props.projectId, user_id: member.user_id } },
        }),
      );
      if (isMe) route(to.projects);
      else props.onRemoved(`${member.email} is no longer a member of ${data.project?.name ?? 'the project'}.`);
    } catch (err) {
      setError(message(err));
    }
  };

  return (
    <li>
      <div class="member">
        <strong>{member.email}</strong>
        {isMe && <span class="badge">you</span>}
        <span class="muted">
          {customRoles.length ? `Custom roles: ${customRoles.map((r) => r.role.name).join(', ')}` : 'No custom role'}
        </span>
      </div>
      {data.environments.length > 0 && (
        <form class="inline-form" onSubmit={save} aria-label={`Environment roles of ${member.email}`}>
          {data.environments.map((env) => (
            <Select
              key={env.id}
              label={`Role in ${env.name}`}
              name={`role-${member.user_id}-${env.id}`}
              value={chosen[env.id] ?? ''}
              onValue={(v) => setChosen({ ...chosen, [env.id]: v })}
              options={[['', 'No role'], ...ENV_ROLES]}
            />
          ))}
          <button type="submit" disabled={!changed.length} aria-label={`Save roles of ${member.email}`}>
            Save roles
          </button>
        </form>
      )}
      <div class="row-actions">
        {saved && (
          <span role="status" class="saved">
            {saved}
          </span>
        )}
        {isMe ? (
          <ConfirmButton
            label="Leave project"
            onConfirm={remove}
            confirm={`Leave ${data.project?.name ?? 'this project'}? You lose access at once, with your roles in it; what you created stays. Only an owner can add you again.`}
          />
        ) : data.project?.is_owner ? (
          <ConfirmButton
            label="Remove from project"
            subject={member.email}
            onConfirm={remove}
            confirm={`Remove ${member.email} from ${data.project?.name ?? 'the project'}? Their access ends at once, with their environment and custom roles; what they created stays.`}
          />
        ) : null}
      </div>
      <Alert>{error}</Alert>
    </li>
  );
}
