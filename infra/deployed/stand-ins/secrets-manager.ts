import { randomInt } from 'node:crypto';
import type { Iam } from '../iam.ts';
import { json, jsonError, jsonOperation, type AwsRequest, type AwsResponse } from './aws-request.ts';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** A value as `GenerateSecretString` makes it (length and punctuation; the other exclusions are not used by the stack). */
export function generatedSecret(spec: { PasswordLength?: number; ExcludePunctuation?: boolean }): string {
  const alphabet = LETTERS + (spec.ExcludePunctuation ? '' : PUNCTUATION);
  return Array.from({ length: spec.PasswordLength ?? 32 }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/** Secrets Manager's GetSecretValue over the secrets the run holds (the template's, generated at start, and any added). */
export function createSecretsManager(secrets: Map<string, string>, iam: Iam) {
  return async function secretsManager(req: AwsRequest): Promise<AwsResponse> {
    const { operation, input } = jsonOperation(req);
    if (operation !== 'GetSecretValue')
      return jsonError('UnsupportedOperation', `the local Secrets Manager does not implement ${operation}`);
    const arn = String(input.SecretId);
    const value = secrets.get(arn);
    if (!(await iam.allows(req.accessKeyId, 'secretsmanager:GetSecretValue', arn)))
      return jsonError('AccessDeniedException', iam.message(req.accessKeyId, 'secretsmanager:GetSecretValue', arn));
    if (value === undefined)
      return jsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return json({
      ARN: arn,
      Name: arn.split(':').pop(),
      SecretString: value,
      VersionId: 'local',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 0,
    });
  };
}
