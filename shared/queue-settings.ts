/**
 * Queue settings the cloud stack (the redrive policy), the local queues and the workers must agree on.
 * A leaf module (no imports): reading it pulls nothing into a bundle or into the synth.
 */

/** Receives of a message before it moves to its dead-letter queue (the redrive policy's `maxReceiveCount`): the last one is a worker's last attempt. */
export const MAX_RECEIVES = 5;
