import { SESClient } from '@aws-sdk/client-ses';
import { config } from '../config';
import { lazyClient } from './lazy';

export const ses = lazyClient(() => new SESClient({ region: config().AWS_REGION }));
