/** The AWS clients, one module each (see `lazyClient`): a function's bundle carries only those it uses. */
export { ddb } from './clients/dynamo';
export { sendMessage } from './clients/sqs';
export { ses } from './clients/ses';
export { readSecret } from './clients/secrets';
export { resetClients } from './clients/lazy';
