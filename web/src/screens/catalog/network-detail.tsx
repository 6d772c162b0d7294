import { api, ok, type Network } from '../../api';
import { allServices } from '../../services';
import { attachedNetworkIds, type Holder } from '../../attachments';
import { to } from '../../links';
import { Loaded, Page, useLoad } from '../../ui';
import { orDash, useDetailActions } from './detail';
import { floorName } from './names';
import { CustomFacts } from '../../custom-fields';

/** Services are asked one by one for their networks (the API answers per holder): only in environments up to this many. */
const SERVICES_CHECKED_MAX = 100;

/** A network with the servers and services attached to it; edit, delete. */
export function NetworkDetail(props: { projectId: string; envId: string; networkId: string }) {
  const scope = { project_id: props.projectId, environment_id: props.envId };
  const id = props.networkId;
  const network = useLoad(
    (signal) => ok(api.GET('/networks/{network_id}', { params: { path: { network_id: id } }, signal })),
    [id],
  );
  const attached = useLoad(
    async (signal) => {
      const [floors, services] = await Promise.all([
        ok(api.GET('/service-floors', { params: { query: scope }, signal })),
        allServices(scope, undefined, signal),
      ]);
      const checkServices = services.length <= SERVICES_CHECKED_MAX;
      const holders = [
        ...floors.map((f): Holder => ({ kind: 'floor', id: f.id })),
        ...(checkServices ? services.map((s): Holder => ({ kind: 'service', id: s.id })) : []),
      ];
      const on = new Set(
        [...(await attachedNetworkIds(holders, signal))].filter(([, ids]) => ids.includes(id)).map(([h]) => h.id),
      );
      return {
        floors: floors.filter((f) => on.has(f.id)),
        services: services.filter((s) => on.has(s.id)),
        checkServices,
      };
    },
    [id],
  );
  const name = network.data?.name ?? 'Network';
  const { actions, alert } = useDetailActions({
    projectId: props.projectId,
    entityId: id,
    editHref: to.editNetwork(props.projectId, props.envId, id),
    listHref: to.networks(props.projectId, props.envId),
    confirm: `Delete network ${name}? Every server and service attached to it leaves it.`,
    remove: () => ok(api.DELETE('/networks/{network_id}', { params: { path: { network_id: id } } })),
  });
  return (
    <Page title={name} actions={network.data && actions}>
      {alert}
      <Loaded state={network} label="the network">
        {(n) => <NetworkFacts network={n} />}
      </Loaded>
      <Loaded state={attached} label="what is attached">
        {(a) => (
          <>
            <h2>Attached servers</h2>
            {a.floors.length ? (
              <ul class="plain">
                {a.floors.map((f) => (
                  <li key={f.id}>
                    <a href={to.server(props.projectId, props.envId, f.id)}>{floorName(f)}</a>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No server is attached. Attach one from its server page.</p>
            )}
            <h2>Attached services</h2>
            {!a.checkServices ? (
              <p class="muted">
                This environment has more than {SERVICES_CHECKED_MAX} services: open a service to see its networks.
              </p>
            ) : a.services.length ? (
              <ul class="plain">
                {a.services.map((s) => (
                  <li key={s.id}>
                    <a href={to.service(props.projectId, props.envId, s.id)}>{s.name}</a>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No service is attached. Attach one from its service page.</p>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}

function NetworkFacts({ network: n }: { network: Network }) {
  return (
    <dl class="facts">
      <dt>CIDR</dt>
      <dd>{n.cidr}</dd>
      <dt>Gateway</dt>
      <dd>{orDash(n.gateway)}</dd>
      <dt>VLAN id</dt>
      <dd>{orDash(n.vlan_id)}</dd>
      <dt>Private</dt>
      <dd>{n.is_private ? 'yes' : 'no'}</dd>
      <dt>Description</dt>
      <dd>{orDash(n.description)}</dd>
      <CustomFacts projectId={n.project_id} kind="network" values={n.custom_fields} />
    </dl>
  );
}
