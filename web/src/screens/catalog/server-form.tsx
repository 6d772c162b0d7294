import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type Floor, type FloorInput } from '../../api';
import {
  listOf,
  numberOrNull,
  PROVIDER_OPTIONS,
  TextFields,
  textOf,
  textOrNull,
  type TextFieldSpec,
} from '../../form-fields';
import { to } from '../../links';
import { Alert, Field, Select, useSubmit } from '../../ui';
import { EditPage, FormActions } from './edit';
import { CustomFieldInputs, useCustomDraft } from '../../custom-fields';
import { floorName, FLOOR_TYPES } from './names';
import { useChangedUnderneath } from '../../live';

/** [field, label, attributes]: the server's text and number fields, in the order shown. */
const TEXT_FIELDS = [
  ['hostname', 'Hostname', { maxLength: 253 }],
  ['provider_region', 'Region', {}],
  ['provider_zone', 'Zone', {}],
  ['provider_instance_id', 'Instance id', {}],
  ['ip_address', 'IP address', {}],
  ['cpu', 'CPUs', { inputMode: 'numeric' }],
  ['memory_mb', 'Memory (MB)', { inputMode: 'numeric' }],
  ['storage_gb', 'Storage (GB)', { inputMode: 'numeric' }],
  ['instances', 'Instances', { inputMode: 'numeric' }],
] as const satisfies readonly TextFieldSpec<string>[];

type Draft = Record<(typeof TEXT_FIELDS)[number][0] | 'type' | 'provider' | 'ip_addresses' | 'tags', string>;

const draftOf = (f?: Floor): Draft => ({
  type: f?.type ?? 'vm',
  hostname: textOf(f?.hostname),
  provider: textOf(f?.provider),
  provider_region: textOf(f?.provider_region),
  provider_zone: textOf(f?.provider_zone),
  provider_instance_id: textOf(f?.provider_instance_id),
  ip_address: textOf(f?.ip_address),
  ip_addresses: f?.ip_addresses.join(', ') ?? '',
  cpu: textOf(f?.cpu),
  memory_mb: textOf(f?.memory_mb),
  storage_gb: textOf(f?.storage_gb),
  instances: textOf(f?.instances),
  tags: f?.tags.join(', ') ?? '',
});

/** What the form sends (the fields a PATCH and a POST share): empty text clears a field. */
const bodyOf = (d: Draft) => ({
  type: d.type as FloorInput['type'],
  hostname: textOrNull(d.hostname),
  provider: textOrNull(d.provider) as FloorInput['provider'],
  provider_region: textOrNull(d.provider_region),
  provider_zone: textOrNull(d.provider_zone),
  provider_instance_id: textOrNull(d.provider_instance_id),
  ip_address: textOrNull(d.ip_address),
  ip_addresses: listOf(d.ip_addresses),
  cpu: numberOrNull(d.cpu),
  memory_mb: numberOrNull(d.memory_mb),
  storage_gb: numberOrNull(d.storage_gb),
  instances: numberOrNull(d.instances),
  tags: listOf(d.tags),
});

/** Registers a server, or edits one (`serverId`): the API's 422 items appear under the field they name. */
export function ServerForm(props: { projectId: string; envId: string; serverId?: string }) {
  const id = props.serverId;
  const load = id
    ? (signal: AbortSignal) => ok(api.GET('/service-floors/{floor_id}', { params: { path: { floor_id: id } }, signal }))
    : undefined;
  return (
    <EditPage noun="server" id={id} load={load} name={floorName}>
      {(floor) => <Form key={floor?.id ?? 'new'} {...props} floor={floor} />}
    </EditPage>
  );
}

function Form(props: { projectId: string; envId: string; floor?: Floor }) {
  const { route } = useLocation();
  const [draft, setDraft] = useState<Draft>(draftOf(props.floor));
  const underneath = useChangedUnderneath(
    { projectId: props.projectId, envId: props.envId },
    'service_floor',
    props.floor?.id,
    'server',
  );
  const set = (k: keyof Draft) => (v: string) => setDraft({ ...draft, [k]: v });
  const custom = useCustomDraft(props.projectId, 'service_floor', props.floor?.custom_fields);
  const { submit, busy, error, fields } = useSubmit(async () => {
    const body = { ...bodyOf(draft), custom_fields: custom.body(!props.floor) };
    const saved = props.floor
      ? await ok(api.PATCH('/service-floors/{floor_id}', { params: { path: { floor_id: props.floor.id } }, body }))
      : await ok(
          api.POST('/service-floors', { body: { ...body, project_id: props.projectId, environment_id: props.envId } }),
        );
    route(to.server(props.projectId, props.envId, saved.id));
  }, [...Object.keys(draftOf()), ...custom.names]);
  return (
    <form onSubmit={submit} noValidate>
      <Alert>{underneath}</Alert>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Select
          label="Type"
          name="type"
          required
          value={draft.type}
          onValue={set('type')}
          error={fields.type}
          options={FLOOR_TYPES}
        />
        <Select
          label="Provider"
          name="provider"
          value={draft.provider}
          onValue={set('provider')}
          error={fields.provider}
          options={PROVIDER_OPTIONS}
        />
        <TextFields specs={TEXT_FIELDS} draft={draft} set={set} errors={fields} />
        <Field
          label="More IP addresses"
          name="ip_addresses"
          value={draft.ip_addresses}
          onValue={set('ip_addresses')}
          error={fields.ip_addresses}
          hint="Comma-separated"
        />
        <Field
          label="Tags"
          name="tags"
          value={draft.tags}
          onValue={set('tags')}
          error={fields.tags}
          hint="Comma-separated"
        />
        <CustomFieldInputs defs={custom.defs} draft={custom.draft} onDraft={custom.setDraft} errors={fields} />
      </div>
      <FormActions
        busy={busy}
        save={props.floor ? 'Save changes' : 'Create server'}
        cancelHref={
          props.floor
            ? to.server(props.projectId, props.envId, props.floor.id)
            : to.servers(props.projectId, props.envId)
        }
      />
    </form>
  );
}
