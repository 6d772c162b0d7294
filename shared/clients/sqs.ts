import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { byInvocation } from './background-retries';

export const sqs = byInvocation((retries) => new SQSClient({ region: config().AWS_REGION, ...retries }));
