import { SESClient } from '@aws-sdk/client-ses';
import { config } from '../config';
import { byInvocation } from './background-retries';

export const ses = byInvocation((retries) => new SESClient({ region: config().AWS_REGION, ...retries }));
