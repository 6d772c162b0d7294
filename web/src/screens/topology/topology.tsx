import { Page } from '../../ui';

export function Topology() {
  return (
    <Page title="Topology">
      <p>The topology of this environment.</p>
    </Page>
  );
}
