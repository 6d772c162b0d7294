import { expect } from 'vitest';
import type { Client } from './http.ts';

/** Creates a project and an environment in it; returns their ids. */
export async function projectWithEnv(api: Client, token: string, name = `p-${Math.random().toString(36).slice(2, 8)}`) {
  const project = await api.post('/projects', { name }, { token });
  expect(project.status, project.text).toBe(201);
  const env = await api.post('/environments', { name: 'production', project_id: project.body.id }, { token });
  expect(env.status, env.text).toBe(201);
  return { projectId: project.body.id as string, envId: env.body.id as string };
}

/** Gives `userId` a role in an environment (as the project owner, which also makes them a member). */
export async function grantRole(
  api: Client,
  ownerToken: string,
  envId: string,
  userId: string,
  role: 'administrator' | 'manager' | 'viewer',
) {
  const res = await api.post(`/environments/${envId}/roles`, { user_id: userId, role }, { token: ownerToken });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
