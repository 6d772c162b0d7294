/** The AWS clients, one module each (see `lazyClient`): a function's bundle carries only those it uses. */
export { ddb } from './clients/dynamo.ts';
export { sendMessage } from './clients/sqs.ts';
export { ses } from './clients/ses.ts';
export { readSecret } from './clients/secrets.ts';
export { resetClients } from './clients/lazy.ts';
