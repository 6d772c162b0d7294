import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../config.ts';
import { captured } from '../tracing.ts';
import { onReset } from './lazy.ts';
import { sdkLogger } from './sdk-logger.ts';

/**
 * A secret's text (GetSecretValue). The Secrets Manager SDK is imported at the first read, not at
 * import: each function reads its secrets once per container (the signing key, Stripe's keys, the
 * admin's), and a second SDK client loaded at start costs about a fifth of a hello-world's cold
 * start (docs/cold-start.md).
 */
export async function readSecret(secretId: string): Promise<string | undefined> {
  const sdk = await import('@aws-sdk/client-secrets-manager');
  client ??= captured(new sdk.SecretsManagerClient({ region: config().AWS_REGION, logger: sdkLogger }));
  return (await client.send(new sdk.GetSecretValueCommand({ SecretId: secretId }))).SecretString;
}
let client: SecretsManagerClient | undefined;
onReset(() => {
  client?.destroy();
  client = undefined;
});
