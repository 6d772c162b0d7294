import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { KMSClient } from '@aws-sdk/client-kms';
import { sdkLogger } from '#shared/clients/sdk-logger';
import { config } from '#shared/config';
import { localKeyFile } from './local-key.ts';
import { captured } from '#shared/tracing';

/**
 * Encryption at rest for small secrets (TOTP device secrets). In the cloud KMS encrypts them
 * (`TOTP_KMS_KEY_ID`); locally AES-256-GCM with a key generated once under LOCAL_DATA_DIR/keys.
 * The context (e.g. account and device id) is bound to the ciphertext — KMS encryption context,
 * GCM additional data — so a sealed value copied onto another item does not open.
 * Sealed values say which scheme made them: `kms:v1:<blob>` or `local:v1:<iv>.<tag>.<ciphertext>`.
 */
export type SealContext = Record<string, string>;

export async function seal(plaintext: string, context: SealContext): Promise<string> {
  const { TOTP_KMS_KEY_ID } = config();
  if (TOTP_KMS_KEY_ID) {
    const { client, sdk } = await kms();
    const out = await client.send(
      new sdk.EncryptCommand({
        KeyId: TOTP_KMS_KEY_ID,
        Plaintext: Buffer.from(plaintext, 'utf8'),
        EncryptionContext: context,
      }),
    );
    return `kms:v1:${Buffer.from(out.CiphertextBlob!).toString('base64')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await localKey(), iv).setAAD(additionalData(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `local:v1:${[iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url')).join('.')}`;
}

export async function open(sealed: string, context: SealContext): Promise<string> {
  if (sealed.startsWith('kms:v1:')) {
    const { client, sdk } = await kms();
    const out = await client.send(
      new sdk.DecryptCommand({ CiphertextBlob: Buffer.from(sealed.slice(7), 'base64'), EncryptionContext: context }),
    );
    return Buffer.from(out.Plaintext!).toString('utf8');
  }
  if (sealed.startsWith('local:v1:')) {
    const [iv, tag, ciphertext] = sealed
      .slice(9)
      .split('.')
      .map((p) => Buffer.from(p, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', await localKey(), iv)
      .setAAD(additionalData(context))
      .setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  }
  throw new Error('Unknown sealed-secret format');
}

/** Canonical bytes of the context: sorted keys, so the same context always authenticates. */
const additionalData = (context: SealContext) =>
  Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((k) => [k, context[k]]),
    ),
    'utf8',
  );

/** Keys by file path: a process may serve stacks with different data directories (tests). */
const localKeys = new Map<string, Promise<Buffer>>();
function localKey(): Promise<Buffer> {
  const path = join(config().LOCAL_DATA_DIR, 'keys', 'secret-box.key');
  let key = localKeys.get(path);
  if (!key) {
    key = localKeyFile(path, 32).then((text) => Buffer.from(text, 'base64url'));
    key.catch(() => localKeys.delete(path));
    localKeys.set(path, key);
  }
  return key;
}

/** KMS, loaded on first use (sealing is rare: enrolling an authenticator, rotating a refresh token), not at every cold start. */
let kmsClient: KMSClient | undefined;
async function kms() {
  const sdk = await import('@aws-sdk/client-kms');
  kmsClient ??= captured(new sdk.KMSClient({ region: config().AWS_REGION, logger: sdkLogger }));
  return { client: kmsClient, sdk };
}
