/** Live changes of an environment for clients (docs/decisions/0985–0988). */
export type { StreamRecord } from './changes.ts';
export { liveTicket, liveConnectionItems, startLive } from './connections.ts';
export { liveFromStream, LIVE_STREAM_TYPES } from './stream.ts';
