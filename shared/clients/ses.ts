import { SESClient } from '@aws-sdk/client-ses';
import { config } from '../config.ts';
import { byInvocation } from './background-retries.ts';

export const ses = byInvocation((settings) => new SESClient({ region: config().AWS_REGION, ...settings }));
