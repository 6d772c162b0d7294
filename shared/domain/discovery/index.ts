/** The discovery context's public face: cloud accounts, discovery runs and the jobs worker's discovery. */
export { discoveryProvider, cloudAccountView, discoveryRunView } from './entities';
export {
  createCloudAccount,
  connectCloudAccount,
  listCloudAccounts,
  cloudStatus,
  getCloudAccount,
  deleteCloudAccount,
} from './accounts';
export { discoverJobMessage, startDiscovery } from './runs';
export { getDiscoveryRun, discoveryProgressOf, discoveryProgressTicket } from './run-reads';
export { runDiscoveryJob } from './run-job';
