import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { config } from './config';
import { captured } from './tracing';

/**
 * Sends a message to one WebSocket connection: through the WebSocket API's management endpoint in
 * the cloud, to the local server's socket locally (the local runtime installs its sender). Answers
 * false when the connection is gone (the caller forgets it).
 */
export type PushSender = (connectionId: string, message: string) => Promise<boolean>;

let localSender: PushSender | undefined;
export function useLocalPushSender(sender: PushSender | undefined): void {
  localSender = sender;
}

let client: ApiGatewayManagementApiClient | undefined;
export async function push(connectionId: string, message: string): Promise<boolean> {
  const endpoint = config().WS_CALLBACK_URL;
  if (!endpoint) return localSender ? localSender(connectionId, message) : false;
  // Loaded on first use: only the functions that post progress pay for the package.
  const sdk = await import('@aws-sdk/client-apigatewaymanagementapi');
  client ??= captured(new sdk.ApiGatewayManagementApiClient({ endpoint }));
  try {
    await client.send(new sdk.PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(message) }));
    return true;
  } catch (err) {
    if (err instanceof sdk.GoneException) return false;
    throw err;
  }
}
