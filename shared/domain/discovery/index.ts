/** The discovery context's public face: cloud accounts, discovery runs and the jobs worker's discovery. */
export * from './entities';
export * from './accounts';
export * from './runs';
export { discoveredFloorId } from './sync';
