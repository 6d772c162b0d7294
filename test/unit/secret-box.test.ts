import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { mockClient } from 'aws-sdk-client-mock';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { reloadConfig } from '#shared/config';
import { open, seal } from '#auth/secret-box';
import { runTmpDir } from '../helpers/run-tmp.ts';

const context = { purpose: 'totp-device', user_id: 'u1', device_id: 'd1' };
let dataDir: string;

describe('secret box, locally (AES-256-GCM with a key file)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(runTmpDir(), 'secret-box-'));
    reloadConfig({ LOCAL_DATA_DIR: dataDir, TOTP_KMS_KEY_ID: '' });
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('opens what it sealed, and seals the same secret differently each time', async () => {
    const a = await seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', context);
    const b = await seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', context);
    expect(a).toMatch(/^local:v1:/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('JBSWY3DP');
    expect(await open(a, context)).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
  });

  it('keeps a 256-bit key file under LOCAL_DATA_DIR/keys', async () => {
    await seal('x', context);
    const key = await readFile(join(dataDir, 'keys', 'secret-box.key'), 'utf8');
    expect(Buffer.from(key.trim(), 'base64url')).toHaveLength(32);
  });

  it('refuses to open under another context (a sealed value moved to another account or device)', async () => {
    const sealed = await seal('secret', context);
    await expect(open(sealed, { ...context, user_id: 'u2' })).rejects.toThrow();
    await expect(open(sealed, { ...context, device_id: 'd2' })).rejects.toThrow();
  });

  it('refuses a tampered ciphertext', async () => {
    const sealed = await seal('secret', context);
    const [iv, tag, ct] = sealed.slice('local:v1:'.length).split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    await expect(open(`local:v1:${iv}.${tag}.${flipped.toString('base64url')}`, context)).rejects.toThrow();
    await expect(open('plain-text', context)).rejects.toThrow('Unknown sealed-secret format');
  });
});

describe('secret box, in the cloud (KMS)', () => {
  const kms = mockClient(KMSClient);
  beforeEach(() => {
    kms.reset();
    reloadConfig({ TOTP_KMS_KEY_ID: 'alias/totp' });
  });

  it('encrypts with the configured key and the context as encryption context', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: new Uint8Array([1, 2, 3]) });
    expect(await seal('secret', context)).toBe(`kms:v1:${Buffer.from([1, 2, 3]).toString('base64')}`);
    const input = kms.commandCalls(EncryptCommand)[0].args[0].input;
    expect(input.KeyId).toBe('alias/totp');
    expect(input.EncryptionContext).toEqual(context);
    expect(Buffer.from(input.Plaintext!).toString()).toBe('secret');
  });

  it('decrypts with the same encryption context', async () => {
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('secret') });
    expect(await open(`kms:v1:${Buffer.from([1, 2, 3]).toString('base64')}`, context)).toBe('secret');
    const input = kms.commandCalls(DecryptCommand)[0].args[0].input;
    expect(Buffer.from(input.CiphertextBlob!)).toEqual(Buffer.from([1, 2, 3]));
    expect(input.EncryptionContext).toEqual(context);
  });
});
