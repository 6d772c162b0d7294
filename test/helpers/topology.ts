import { expect } from 'vitest';
import type { Client } from './http.ts';
import { setPlan } from './plans.ts';
import { projectWithEnv } from './tenancy.ts';
import { signUp } from './http.ts';

/** An owner on the Team plan (room for services and environments) with a project and an environment. */
export async function ownerWithEnv(api: Client) {
  const owner = await signUp(api);
  await setPlan(owner.id, 'Team');
  const { projectId, envId } = await projectWithEnv(api, owner.token);
  return { owner, projectId, envId };
}

export async function addEnv(
  api: Client,
  token: string,
  projectId: string,
  name = `env-${Math.random().toString(36).slice(2, 8)}`,
) {
  const res = await api.post('/environments', { name, project_id: projectId }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** Creates a service through the API; returns its id. */
export async function addService(
  api: Client,
  token: string,
  projectId: string,
  envId: string,
  name: string,
  fields: Record<string, unknown> = {},
) {
  const res = await api.post('/services', { name, project_id: projectId, environment_id: envId, ...fields }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** Creates a service floor (a VM) through the API; returns its id. */
export async function addFloor(api: Client, token: string, projectId: string, envId: string, hostname: string) {
  const res = await api.post(
    '/service-floors',
    { project_id: projectId, environment_id: envId, type: 'vm', hostname },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

export async function connect(api: Client, token: string, body: Record<string, unknown>) {
  const res = await api.post('/service-connections', body, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function link(api: Client, token: string, projectId: string, envId: string, from: string, to: string) {
  const res = await api.post(
    '/service-links',
    { project_id: projectId, environment_id: envId, from_service_id: from, to_service_id: to },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Deletes a service through the API. */
export async function removeService(api: Client, token: string, id: string) {
  const res = await api.delete(`/services/${id}`, undefined, { token });
  expect(res.status, res.text).toBe(204);
}
