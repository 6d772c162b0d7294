import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { sdkLogger } from './clients/sdk-logger.ts';
import { config } from './config.ts';
import { captured } from './tracing.ts';

/**
 * Sends a message to one WebSocket connection: through the WebSocket API's management endpoint in
 * the cloud, to the local server's socket locally (the local runtime installs its sender). Answers
 * false when the connection is gone (the caller forgets it).
 */
export type PushSender = (connectionId: string, message: string) => Promise<boolean>;
/** Closes one connection (the management API's DeleteConnection); answers false when it was gone already. */
export type PushCloser = (connectionId: string) => Promise<boolean>;

let localSender: PushSender | undefined;
let localCloser: PushCloser | undefined;
export function useLocalPushSender(sender: PushSender | undefined, closer?: PushCloser): void {
  localSender = sender;
  localCloser = closer;
}

let client: ApiGatewayManagementApiClient | undefined;
async function management(endpoint: string) {
  // Loaded on first use: only the functions that post progress pay for the package.
  const sdk = await import('@aws-sdk/client-apigatewaymanagementapi');
  client ??= captured(new sdk.ApiGatewayManagementApiClient({ endpoint, logger: sdkLogger }));
  return { sdk, client };
}

export async function push(connectionId: string, message: string): Promise<boolean> {
  const endpoint = config().WS_CALLBACK_URL;
  if (!endpoint) return localSender ? localSender(connectionId, message) : false;
  const { sdk, client } = await management(endpoint);
  try {
    await client.send(new sdk.PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(message) }));
    return true;
  } catch (err) {
    if (err instanceof sdk.GoneException) return false;
    throw err;
  }
}

/** Closes a connection from the server's side (its `$disconnect` follows, as when the client closes it). */
export async function closeConnection(connectionId: string): Promise<boolean> {
  const endpoint = config().WS_CALLBACK_URL;
  if (!endpoint) return localCloser ? localCloser(connectionId) : false;
  const { sdk, client } = await management(endpoint);
  try {
    await client.send(new sdk.DeleteConnectionCommand({ ConnectionId: connectionId }));
    return true;
  } catch (err) {
    if (err instanceof sdk.GoneException) return false;
    throw err;
  }
}
