import type { Command } from 'commander';
import { examples, inTarget, optionsOf, withOutput } from './common.ts';
import { CHOICE_NOT_KEPT, connect, keepChoice } from './context.ts';
import { col, emit, say } from './output.ts';
import { findEnvironment, findProject } from './target.ts';

/** `use`, `projects` and `envs`: choosing the project and environment later commands work in, listing and creating them. */
export function projectCommands(program: Command) {
  examples(
    withOutput(
      program
        .command('use <project> [environment]')
        .description('choose the project (and environment) later commands work in, by name or id'),
    ).action(async (projectRef, envRef, _o, cmd) => {
      const o = optionsOf(cmd);
      const c = await connect(o);
      const project = await findProject(c, projectRef);
      let environment: { id: string; name: string } | undefined;
      if (envRef) environment = await findEnvironment(c, project.id, envRef);
      else {
        const { data: envs } = await c.client.api.GET('/environments', {
          params: { query: { project_id: project.id } },
        });
        if (envs!.length === 1) environment = envs![0];
      }
      c.session.project = { id: project.id, name: project.name };
      c.session.environment = environment ? { id: environment.id, name: environment.name } : undefined;
      const kept = keepChoice(c);
      if (o.output === 'table')
        say(
          kept
            ? `Using ${project.name}${environment ? `/${environment.name}` : ' (no environment chosen: `infracat envs ls`, then `infracat use <project> <environment>`)'}`
            : `Found ${project.name}${environment ? `/${environment.name}` : ''} (${CHOICE_NOT_KEPT}).`,
        );
      else
        emit(c.session.project && { project: c.session.project, environment: c.session.environment ?? null }, o.output);
    }),
    'infracat use shop',
    'infracat use shop production',
  );
  const projects = program.command('projects').description('projects you are a member of');
  examples(
    withOutput(projects.command('ls').description('list projects')).action(async (_o, cmd) => {
      const o = optionsOf(cmd);
      const c = await connect(o);
      const { data } = await c.client.api.GET('/projects');
      const current = c.session.project?.id;
      emit(data!, o.output, [
        col('', (p) => (p.id === current ? '*' : '')),
        col('NAME', 'name'),
        col('OWNER', 'is_owner'),
        col('ID', 'id'),
      ]);
    }),
    'infracat projects ls',
  );
  examples(
    withOutput(projects.command('create <name>').description('create a project (you are its owner) and use it')).action(
      async (name, _o, cmd) => {
        const o = optionsOf(cmd);
        const c = await connect(o);
        const { data } = await c.client.api.POST('/projects', { body: { name } });
        c.session.project = { id: data!.id, name: data!.name };
        c.session.environment = undefined;
        const kept = keepChoice(c);
        if (o.output === 'table')
          say(
            kept
              ? `Created project ${data!.name} (${data!.id}) and using it; next: \`infracat envs create <name>\`.`
              : `Created project ${data!.name} (${data!.id}) (${CHOICE_NOT_KEPT}).`,
          );
        else emit(data!, o.output);
      },
    ),
    'infracat projects create shop',
  );
  const envs = program.command('envs').alias('environments').description('environments of the project');
  examples(
    withOutput(
      envs.command('ls').description('list environments').option('-p, --project <project>', 'project name or id'),
    ).action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.GET('/environments', { params: { query: { project_id: t.project.id } } });
      const current = t.environment?.id;
      emit(data!, o.output, [col('', (e) => (e.id === current ? '*' : '')), col('NAME', 'name'), col('ID', 'id')]);
    }),
    'infracat envs ls',
    'infracat envs ls --project shop -o yaml',
  );
  examples(
    withOutput(
      envs
        .command('create <name>')
        .description('create an environment in the project and use it')
        .option('-p, --project <project>', 'project name or id'),
    ).action(async (name, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.POST('/environments', { body: { name, project_id: t.project.id } });
      c.session.project = t.project;
      c.session.environment = { id: data!.id, name: data!.name };
      const kept = keepChoice(c);
      if (o.output === 'table')
        say(
          kept
            ? `Created environment ${t.project.name}/${data!.name} and using it.`
            : `Created environment ${t.project.name}/${data!.name} (${CHOICE_NOT_KEPT}).`,
        );
      else emit(data!, o.output);
    }),
    'infracat envs create production',
    'infracat envs create staging --project shop',
  );
}
