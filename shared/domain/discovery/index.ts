/** The discovery context's public face: cloud accounts, discovery runs and the jobs worker's discovery. */
export { discoveryProvider, cloudAccountView, discoveryRunView } from './entities.ts';
export {
  createCloudAccount,
  connectCloudAccount,
  listCloudAccounts,
  cloudStatus,
  getCloudAccount,
  deleteCloudAccount,
} from './accounts.ts';
export { discoverJobMessage, startDiscovery } from './runs.ts';
export { getDiscoveryRun, discoveryProgressOf, discoveryProgressTicket } from './run-reads.ts';
export { runDiscoveryJob } from './run-job.ts';
