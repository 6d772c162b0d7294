import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type Service, type ServiceInput } from '../api';
import { to } from '../links';
import { Alert, Field, Loaded, Page, Select, useLoad, useSubmit } from '../ui';
import type { CustomField } from '../api';
import { customBody, customDraftOf, CustomFieldInputs, useCustomFields } from '../custom-fields';
import { useChangedUnderneath } from '../live';
import {
  listOf,
  numberOrNull,
  PROVIDER_OPTIONS,
  TextArea,
  TextFields,
  textOrNull,
  type TextFieldSpec,
} from '../form-fields';

/** The form's text of every editable field. */
type Draft = Record<(typeof TEXT_FIELDS)[number][0] | 'provider' | 'service_floor_id' | 'tags' | 'links', string>;

/** [field, label, input attributes]: the plain text and number fields, in the order shown. */
const TEXT_FIELDS = [
  ['name', 'Name', { required: true, maxLength: 200 }],
  ['category', 'Category', { maxLength: 64 }],
  ['provider_region', 'Region', {}],
  ['provider_zone', 'Zone', {}],
  ['port', 'Port', { inputMode: 'numeric' }],
  ['replicas', 'Replicas', { inputMode: 'numeric' }],
  ['ip_address', 'IP address', {}],
  ['programming_language', 'Language', {}],
  ['programming_language_version', 'Language version', {}],
  ['version', 'Version', {}],
  ['repository_url', 'Repository URL', { hint: 'Starts with https:// or git://' }],
] as const satisfies readonly TextFieldSpec<string>[];

const draftOf = (s?: Service): Draft => ({
  name: s?.name ?? '',
  category: s?.category ?? '',
  provider_region: s?.provider_region ?? '',
  provider_zone: s?.provider_zone ?? '',
  port: s?.port?.toString() ?? '',
  replicas: s?.replicas?.toString() ?? '',
  ip_address: s?.ip_address ?? '',
  programming_language: s?.programming_language ?? '',
  programming_language_version: s?.programming_language_version ?? '',
  version: s?.version ?? '',
  repository_url: s?.repository_url ?? '',
  provider: s?.provider ?? '',
  service_floor_id: s?.service_floor_id ?? '',
  tags: s?.tags.join(', ') ?? '',
  links: s?.links.join('\n') ?? '',
});

/** What the form sends: empty text is null (cleared), numbers as numbers when they are numbers (else as typed, for the API to refuse). */
function bodyOf(d: Draft) {
  return {
    name: d.name.trim(),
    category: textOrNull(d.category),
    provider_region: textOrNull(d.provider_region),
    provider_zone: textOrNull(d.provider_zone),
    port: numberOrNull(d.port),
    replicas: numberOrNull(d.replicas),
    ip_address: textOrNull(d.ip_address),
    programming_language: textOrNull(d.programming_language),
    programming_language_version: textOrNull(d.programming_language_version),
    version: textOrNull(d.version),
    repository_url: textOrNull(d.repository_url),
    provider: (textOrNull(d.provider) as ServiceInput['provider']) ?? null,
    service_floor_id: textOrNull(d.service_floor_id),
    tags: listOf(d.tags),
    links: listOf(d.links, '\n'),
  };
}

/** Creates a service, or edits one (`serviceId`): the API's 422 items appear under the field they name. */
export function ServiceForm(props: { projectId: string; envId: string; serviceId?: string }) {
  const editing = props.serviceId;
  const existing = useLoad(
    (signal) =>
      editing
        ? ok(api.GET('/services/{service_id}', { params: { path: { service_id: editing } }, signal }))
        : Promise.resolve(null),
    [editing],
  );
  const floors = useLoad(
    (signal) =>
      ok(
        api.GET('/service-floors', {
          params: { query: { project_id: props.projectId, environment_id: props.envId } },
          signal,
        }),
      ),
    [props.projectId, props.envId],
  );
  const customFields = useCustomFields(props.projectId, 'service');
  return (
    <Page
      title={editing ? 'Edit service' : 'New service'}
      heading={editing ? <>Edit {existing.data?.name ?? 'service'}</> : 'New service'}
    >
      <Loaded state={existing} label="the service">
        {(service) => (
          <Loaded state={customFields} label="the custom fields">
            {(defs) => (
              <Form
                {...props}
                service={service ?? undefined}
                defs={defs}
                floors={(floors.data ?? []).map((f) => [f.id, `${f.hostname ?? f.id} (${f.type})`])}
              />
            )}
          </Loaded>
        )}
      </Loaded>
    </Page>
  );
}

function Form(props: {
  projectId: string;
  envId: string;
  service?: Service;
  defs: CustomField[];
  floors: [string, string][];
}) {
  const { route } = useLocation();
  const [draft, setDraft] = useState<Draft>(draftOf(props.service));
  useEffect(() => setDraft(draftOf(props.service)), [props.service?.id]);
  const set = (k: keyof Draft) => (v: string) => setDraft({ ...draft, [k]: v });
  // Live: the service being edited changed (or went) underneath: say so, keep the draft.
  const underneath = useChangedUnderneath(
    { projectId: props.projectId, envId: props.envId },
    'service',
    props.service?.id,
    'service',
  );
  const [custom, setCustom] = useState(customDraftOf(props.defs, props.service?.custom_fields));

  const { submit, busy, error, fields } = useSubmit(async () => {
    const body = { ...bodyOf(draft), custom_fields: customBody(props.defs, custom, !props.service) };
    const saved = props.service
      ? await ok(api.PATCH('/services/{service_id}', { params: { path: { service_id: props.service.id } }, body }))
      : await ok(
          api.POST('/services', { body: { ...body, project_id: props.projectId, environment_id: props.envId } }),
        );
    route(to.service(props.projectId, props.envId, saved.id));
  }, [...Object.keys(draftOf()), ...props.defs.map((d) => `custom_fields.${d.key}`)]);

  return (
    <form class="service-form" onSubmit={submit} noValidate>
      <Alert>{underneath}</Alert>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <TextFields specs={TEXT_FIELDS} draft={draft} set={set} errors={fields} />
        <Select
          label="Provider"
          name="provider"
          value={draft.provider}
          onValue={set('provider')}
          error={fields.provider}
          options={PROVIDER_OPTIONS}
        />
        <Select
          label="Server"
          name="service_floor_id"
          value={draft.service_floor_id}
          onValue={set('service_floor_id')}
          error={fields.service_floor_id}
          options={[['', 'None (serverless)'], ...props.floors]}
        />
        <Field
          label="Tags"
          name="tags"
          value={draft.tags}
          onValue={set('tags')}
          error={fields.tags}
          hint="Comma-separated"
        />
        <TextArea
          label="Links"
          name="links"
          value={draft.links}
          onValue={set('links')}
          error={fields.links}
          hint="One per line, each starting with http:// or https://"
        />
        <CustomFieldInputs defs={props.defs} draft={custom} onDraft={setCustom} errors={fields} />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {props.service ? 'Save changes' : 'Create service'}
        </button>
        <a
          class="button"
          href={
            props.service
              ? to.service(props.projectId, props.envId, props.service.id)
              : to.services(props.projectId, props.envId)
          }
        >
          Cancel
        </a>
      </div>
    </form>
  );
}
