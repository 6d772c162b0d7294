import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../config';
import { lazyClient } from './lazy';

export const secrets = lazyClient(() => new SecretsManagerClient({ region: config().AWS_REGION }));
