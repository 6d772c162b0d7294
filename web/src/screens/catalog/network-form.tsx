import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type Network } from '../../api';
import { numberOrNull, TextArea, TextFields, textOf, textOrNull, type TextFieldSpec } from '../../form-fields';
import { to } from '../../links';
import { Alert, useSubmit } from '../../ui';
import { EditPage, FormActions } from './edit';
import { CustomFieldInputs, useCustomDraft } from '../../custom-fields';
import { useChangedUnderneath } from '../../live';

/** [field, label, attributes]: the network's text and number fields, in the order shown. */
const TEXT_FIELDS = [
  ['name', 'Name', { required: true, maxLength: 200 }],
  ['cidr', 'CIDR', { required: true, hint: 'An IPv4 network, e.g. 10.0.1.0/24' }],
  ['gateway', 'Gateway', { hint: 'An address inside the network' }],
  ['vlan_id', 'VLAN id', { inputMode: 'numeric', hint: '1 to 4094' }],
] as const satisfies readonly TextFieldSpec<string>[];

type Draft = Record<(typeof TEXT_FIELDS)[number][0] | 'description', string> & { is_private: boolean };

const draftOf = (n?: Network): Draft => ({
  name: n?.name ?? '',
  cidr: n?.cidr ?? '',
  gateway: textOf(n?.gateway),
  vlan_id: textOf(n?.vlan_id),
  description: textOf(n?.description),
  is_private: n?.is_private ?? true,
});

const bodyOf = (d: Draft) => ({
  name: d.name.trim(),
  cidr: d.cidr.trim(),
  gateway: textOrNull(d.gateway),
  vlan_id: numberOrNull(d.vlan_id),
  description: textOrNull(d.description),
  is_private: d.is_private,
});

/** Creates a network, or edits one (`networkId`): the API's 422 items appear under the field they name. */
export function NetworkForm(props: { projectId: string; envId: string; networkId?: string }) {
  const id = props.networkId;
  const load = id
    ? (signal: AbortSignal) => ok(api.GET('/networks/{network_id}', { params: { path: { network_id: id } }, signal }))
    : undefined;
  return (
    <EditPage noun="network" id={id} load={load} name={(n) => n.name}>
      {(network) => <Form key={network?.id ?? 'new'} {...props} network={network} />}
    </EditPage>
  );
}

function Form(props: { projectId: string; envId: string; network?: Network }) {
  const { route } = useLocation();
  const [draft, setDraft] = useState<Draft>(draftOf(props.network));
  const underneath = useChangedUnderneath(
    { projectId: props.projectId, envId: props.envId },
    'network',
    props.network?.id,
    'network',
  );
  const set = (k: Exclude<keyof Draft, 'is_private'>) => (v: string) => setDraft({ ...draft, [k]: v });
  const custom = useCustomDraft(props.projectId, 'network', props.network?.custom_fields);
  const { submit, busy, error, fields } = useSubmit(async () => {
    const body = { ...bodyOf(draft), custom_fields: custom.body(!props.network) };
    const saved = props.network
      ? await ok(api.PATCH('/networks/{network_id}', { params: { path: { network_id: props.network.id } }, body }))
      : await ok(
          api.POST('/networks', { body: { ...body, project_id: props.projectId, environment_id: props.envId } }),
        );
    route(to.network(props.projectId, props.envId, saved.id));
  }, [...Object.keys(draftOf()), ...custom.names]);
  return (
    <form onSubmit={submit} noValidate>
      <Alert>{underneath}</Alert>
      <Alert>{error}</Alert>
      <div class="form-grid">
        <TextFields specs={TEXT_FIELDS} draft={draft} set={set} errors={fields} />
        <div class="field check-field">
          <label>
            <input
              type="checkbox"
              name="is_private"
              checked={draft.is_private}
              onChange={(e) => setDraft({ ...draft, is_private: e.currentTarget.checked })}
            />{' '}
            Private network
          </label>
          {fields.is_private && <p class="error">{fields.is_private}</p>}
        </div>
        <TextArea
          label="Description"
          name="description"
          value={draft.description}
          onValue={set('description')}
          error={fields.description}
          hint="At most 1,000 characters"
        />
        <CustomFieldInputs defs={custom.defs} draft={custom.draft} onDraft={custom.setDraft} errors={fields} />
      </div>
      <FormActions
        busy={busy}
        save={props.network ? 'Save changes' : 'Create network'}
        cancelHref={
          props.network
            ? to.network(props.projectId, props.envId, props.network.id)
            : to.networks(props.projectId, props.envId)
        }
      />
    </form>
  );
}
