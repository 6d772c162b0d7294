import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Iam } from '../iam.ts';
import { ACCOUNT, REGION } from '../intrinsics.ts';
import { json, jsonError, jsonOperation, type AwsRequest, type AwsResponse } from './aws-request.ts';

/**
 * KMS's Encrypt and Decrypt for the template's keys: AES-256-GCM under a key made at start, the
 * encryption context bound in as additional data (Decrypt with another context fails as KMS fails it:
 * InvalidCiphertextException). The ciphertext names its key, so Decrypt needs no KeyId.
 */
export function createKms(keyIds: string[], iam: Iam) {
  const keys = new Map(keyIds.map((id) => [id, randomBytes(32)]));
  const arnOf = (id: string) => `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}`;
  const keyIdOf = (given: string) => given.replace(/^arn:aws:kms:[^:]+:\d+:key\//, '');
  const aad = (context: Record<string, string> | undefined) =>
    Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort(([a], [b]) => a.localeCompare(b))));

  return async function kms(req: AwsRequest): Promise<AwsResponse> {
    const { operation, input } = jsonOperation(req);
    if (operation === 'Encrypt') {
      const id = keyIdOf(String(input.KeyId));
      const key = keys.get(id);
      if (!key) return jsonError('NotFoundException', `Key '${arnOf(id)}' does not exist`);
      if (!(await iam.allows(req.accessKeyId, 'kms:Encrypt', arnOf(id))))
        return jsonError('AccessDeniedException', iam.message(req.accessKeyId, 'kms:Encrypt', arnOf(id)));
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(input.EncryptionContext));
      const sealed = Buffer.concat([cipher.update(Buffer.from(input.Plaintext, 'base64')), cipher.final()]);
      const blob = Buffer.concat([Buffer.from([id.length]), Buffer.from(id), iv, cipher.getAuthTag(), sealed]);
      return json({
        CiphertextBlob: blob.toString('base64'),
        KeyId: arnOf(id),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      });
    }
    if (operation === 'Decrypt') {
      const blob = Buffer.from(String(input.CiphertextBlob), 'base64');
      const id = blob.subarray(1, 1 + blob[0]).toString();
      const key = keys.get(id);
      if (!key) return jsonError('InvalidCiphertextException', '');
      if (input.KeyId && keyIdOf(String(input.KeyId)) !== id)
        return jsonError(
          'IncorrectKeyException',
          'The key ID in the request does not identify a CMK that can perform this operation.',
        );
      if (!(await iam.allows(req.accessKeyId, 'kms:Decrypt', arnOf(id))))
        return jsonError('AccessDeniedException', iam.message(req.accessKeyId, 'kms:Decrypt', arnOf(id)));
      const at = 1 + blob[0];
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(at, at + 12)).setAAD(
          aad(input.EncryptionContext),
        );
        decipher.setAuthTag(blob.subarray(at + 12, at + 28));
        const plain = Buffer.concat([decipher.update(blob.subarray(at + 28)), decipher.final()]);
        return json({
          Plaintext: plain.toString('base64'),
          KeyId: arnOf(id),
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        });
      } catch {
        return jsonError('InvalidCiphertextException', '');
      }
    }
    return jsonError('UnsupportedOperation', `the local KMS does not implement ${operation}`);
  };
}
