import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Iam } from '../iam.ts';
import { ACCOUNT, REGION } from '../intrinsics.ts';
import { xmlError, type AwsRequest, type AwsResponse } from './aws-request.ts';

let sequence = 0;

/**
 * SES's SendEmail (query protocol): each message is captured as one JSON file in the outbox folder, in
 * the shape `npm start`'s outbox mailer writes (`{ to, subject, text, html }`), so the same readers work.
 */
export function createSes(outboxDir: string, iam: Iam) {
  return async function ses(req: AwsRequest): Promise<AwsResponse> {
    const form = new URLSearchParams(req.body.toString('utf8'));
    const action = form.get('Action');
    if (action !== 'SendEmail') return xmlError('InvalidAction', `the local SES does not implement ${action}`, 400);
    const source = form.get('Source') ?? '';
    const identity = `arn:aws:ses:${REGION}:${ACCOUNT}:identity/${source.replace(/^.*</, '').replace(/>.*$/, '')}`;
    if (!(await iam.allows(req.accessKeyId, 'ses:SendEmail', identity)))
      return xmlError('AccessDenied', iam.message(req.accessKeyId, 'ses:SendEmail', identity));
    const mail = {
      to: form.get('Destination.ToAddresses.member.1') ?? '',
      subject: form.get('Message.Subject.Data') ?? '',
      text: form.get('Message.Body.Text.Data') ?? '',
      html: form.get('Message.Body.Html.Data') ?? '',
    };
    await mkdir(outboxDir, { recursive: true });
    await writeFile(
      join(outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-ses-${sequence++}.json`),
      JSON.stringify(mail, null, 2),
    );
    const id = randomUUID();
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body: `<SendEmailResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><SendEmailResult><MessageId>${id}</MessageId></SendEmailResult><ResponseMetadata><RequestId>${id}</RequestId></ResponseMetadata></SendEmailResponse>`,
    };
  };
}
