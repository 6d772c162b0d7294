import { createSecretKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { readSecret } from '#shared/clients';
import { config } from '#shared/config';
import { localKeyFile } from './local-key.ts';

let cached: Promise<KeyObject> | undefined;

/** The HMAC key access tokens are signed with: Secrets Manager in the cloud, a key file under LOCAL_DATA_DIR locally. */
export function signingKey(): Promise<KeyObject> {
  // A prepared KeyObject: jose would otherwise import raw bytes again on every verification.
  cached ??= load()
    .then((bytes) => createSecretKey(bytes))
    .catch((err) => {
      cached = undefined;
      throw err;
    });
  return cached;
}

async function load(): Promise<Uint8Array> {
  const { SIGNING_KEY_SECRET_ARN, LOCAL_DATA_DIR } = config();
  if (SIGNING_KEY_SECRET_ARN) {
    const secret = await readSecret(SIGNING_KEY_SECRET_ARN);
    if (!secret) throw new Error('Signing key secret is empty');
    return new TextEncoder().encode(secret);
  }
  // Generated once and kept, so tokens survive restarts of the local server.
  return new TextEncoder().encode(await localKeyFile(join(LOCAL_DATA_DIR, 'keys', 'jwt-signing.key'), 48));
}

export function resetSigningKey(): void {
  cached = undefined;
}
