import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { lazyClient } from './lazy';

export const sqs = lazyClient(() => new SQSClient({ region: config().AWS_REGION }));
