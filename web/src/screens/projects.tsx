import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, ApiError, type Environment } from '../api';
import { to } from '../links';
import { Alert, ConfirmButton, Field, Loaded, message, Page, useLoad } from '../ui';

/** A one-field create form ("Name" and a button) showing the API's refusal next to the field. */
function NameForm(props: { label: string; button: string; onCreate: (name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await props.onCreate(name.trim());
      setName('');
    } catch (err) {
      setError(err instanceof ApiError && err.fields.name ? err.fields.name : message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <Field label={props.label} name="name" required maxLength={200} value={name} onValue={setName} error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {props.button}
      </button>
    </form>
  );
}

/** The caller's projects, and a new one. */
export function Projects() {
  const { route } = useLocation();
  const projects = useLoad((signal) => ok(api.GET('/projects', { signal })), []);
  return (
    <Page title="Projects">
      <Loaded state={projects} label="projects">
        {(list) =>
          list.length ? (
            <ul class="cards">
              {list.map((p) => (
                <li key={p.id}>
                  <a href={to.project(p.id)}>{p.name}</a> <span class="muted">{p.is_owner ? 'owner' : 'member'}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p>No project yet: create the first one.</p>
          )
        }
      </Loaded>
      <h2>New project</h2>
      <NameForm
        label="Project name"
        button="Create project"
        onCreate={async (name) => {
          const project = await ok(api.POST('/projects', { body: { name } }));
          route(to.project(project.id));
        }}
      />
    </Page>
  );
}

function EnvironmentRow(props: { env: Environment; projectId: string; onChange: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(props.env.name);
  const [error, setError] = useState<string>();
  const rename = async (e: Event) => {
    e.preventDefault();
    try {
      await ok(
        api.PATCH('/environments/{environment_id}', {
          params: { path: { environment_id: props.env.id } },
          body: { name: name.trim() },
        }),
      );
      setRenaming(false);
      props.onChange();
    } catch (err) {
      setError(err instanceof ApiError && err.fields.name ? err.fields.name : message(err));
    }
  };
  return (
    <li>
      {renaming ? (
        <form class="inline-form" onSubmit={rename}>
          <Field
            label={`New name for ${props.env.name}`}
            name={`rename-${props.env.id}`}
            required
            value={name}
            onValue={setName}
            error={error}
          />
          <button type="submit" class="primary">
            Save
          </button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <a href={to.services(props.projectId, props.env.id)}>{props.env.name}</a>
          <span class="row-actions">
            <a href={to.topology(props.projectId, props.env.id)} aria-label={`Topology of ${props.env.name}`}>
              Topology
            </a>
            <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${props.env.name}`}>
              Rename
            </button>
            <ConfirmButton
              label="Delete"
              confirm={`Delete environment ${props.env.name} and everything in it?`}
              onConfirm={async () => {
                await ok(
                  api.DELETE('/environments/{environment_id}', { params: { path: { environment_id: props.env.id } } }),
                );
                props.onChange();
              }}
            />
          </span>
        </>
      )}
    </li>
  );
}

/** A project's environments: open one, create, rename, delete. */
export function ProjectEnvironments(props: { projectId: string }) {
  const { route } = useLocation();
  const [error, setError] = useState<string>();
  const project = useLoad(
    async (signal) => (await ok(api.GET('/projects', { signal }))).find((p) => p.id === props.projectId),
    [props.projectId],
  );
  const envs = useLoad(
    (signal) => ok(api.GET('/environments', { params: { query: { project_id: props.projectId } }, signal })),
    [props.projectId],
  );
  const name = project.data?.name ?? 'Project';
  return (
    <Page title={name} heading={<>Environments of {name}</>}>
      <Alert>{error}</Alert>
      <Loaded state={envs} label="environments">
        {(list) =>
          list.length ? (
            <ul class="cards">
              {list.map((env) => (
                <EnvironmentRow key={env.id} env={env} projectId={props.projectId} onChange={envs.reload} />
              ))}
            </ul>
          ) : (
            <p>This project has no environment yet: create one (production, staging, …).</p>
          )
        }
      </Loaded>
      <h2>New environment</h2>
      <NameForm
        label="Environment name"
        button="Create environment"
        onCreate={async (envName) => {
          const env = await ok(api.POST('/environments', { body: { name: envName, project_id: props.projectId } }));
          route(to.services(props.projectId, env.id));
        }}
      />
      {project.data?.is_owner && (
        <>
          <h2>Delete this project</h2>
          <ConfirmButton
            label="Delete project"
            confirm={`Delete project ${name}, its environments and services?`}
            onConfirm={async () => {
              try {
                await ok(api.DELETE('/projects/{project_id}', { params: { path: { project_id: props.projectId } } }));
                route(to.projects);
              } catch (err) {
                setError(message(err));
              }
            }}
          />
        </>
      )}
    </Page>
  );
}
