import { api, ok, type EnvRoleName, type Environment, type Member, type Project } from '../../api';
import { useLoad } from '../../ui';

/** What the people screens of a project share: the project (name, whether the caller owns it), its members and environments. */
export interface ProjectPeople {
  project?: Project;
  members: Member[];
  environments: Environment[];
}

export function useProjectPeople(projectId: string) {
  return useLoad(
    async (signal): Promise<ProjectPeople> => {
      const [projects, members, environments] = await Promise.all([
        ok(api.GET('/projects', { signal })),
        ok(api.GET('/projects/members/{project_id}', { params: { path: { project_id: projectId } }, signal })),
        ok(api.GET('/environments', { params: { query: { project_id: projectId } }, signal })),
      ]);
      return { project: projects.find((p) => p.id === projectId), members, environments };
    },
    [projectId],
  );
}

/** A member's address by user id (assignments name users by id only). */
export const emailOf = (members: Member[], userId: string) =>
  members.find((m) => m.user_id === userId)?.email ?? 'a former member';

/** SPEC's environment roles, weakest first. */
export const ENV_ROLES: [EnvRoleName, string][] = [
  ['viewer', 'Viewer'],
  ['manager', 'Manager'],
  ['administrator', 'Administrator'],
];
