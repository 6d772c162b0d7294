import { randomBytes, randomUUID } from 'node:crypto';
import { ACCOUNT } from '../intrinsics.ts';
import type { Iam } from '../iam.ts';
import { xmlError, xmlEscape, type AwsRequest, type AwsResponse } from './aws-request.ts';

/** An instance of a customer's account, as discovery reads it (the fields DescribeInstances answers here). */
export interface CustomerInstance {
  id: string;
  name?: string;
  state?: string;
  privateIp?: string;
  zone?: string;
}

interface CustomerRole {
  externalId: string;
  instances: Record<string, CustomerInstance[]>;
}

const STS_XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const EC2_XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const xml = (body: string): AwsResponse => ({
  status: 200,
  headers: { 'content-type': 'text/xml' },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});
const ec2Error = (code: string, message: string, status = 403): AwsResponse => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<Response><Errors><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error></Errors><RequestID>${randomUUID()}</RequestID></Response>`,
});
const accountOf = (roleArn: string) => roleArn.split(':')[4] ?? '';

/**
 * The other side of discovery's cross-account access: a customer's AWS account, holding roles a tester
 * registers (`addRole`: its ARN, the external id its trust policy demands, its instances by region).
 * STS (query protocol): AssumeRole, authorized against the calling function's role with `sts:ExternalId`
 * in the request context (the stack's grant is conditioned on it), then checked against the role's
 * trust (the external id); it hands out session credentials of that role. GetCallerIdentity answers
 * for a function or an assumed role. EC2 (EC2 query protocol): DescribeInstances with an assumed role's
 * credentials, in the region its signature names. The customer's own IAM is the role's trust alone.
 */
export function createCustomerAws(iam: Iam) {
  const roles = new Map<string, CustomerRole>();
  const sessions = new Map<string, string>(); // access key id → role ARN

  function assumeRole(req: AwsRequest, input: URLSearchParams): Promise<AwsResponse> | AwsResponse {
    const roleArn = input.get('RoleArn') ?? '';
    const externalId = input.get('ExternalId') ?? '';
    return iam
      .allows(req.accessKeyId, 'sts:AssumeRole', roleArn, externalId ? { 'sts:ExternalId': externalId } : {})
      .then((allowed) => {
        if (!allowed) return xmlError('AccessDenied', iam.message(req.accessKeyId, 'sts:AssumeRole', roleArn));
        const role = roles.get(roleArn);
        if (!role || role.externalId !== externalId)
          return xmlError('AccessDenied', `User is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);
        const key = `ASIACUST${randomBytes(6).toString('hex').toUpperCase()}`;
        sessions.set(key, roleArn);
        const session = input.get('RoleSessionName') ?? 'session';
        return xml(
          `<AssumeRoleResponse xmlns="${STS_XMLNS}"><AssumeRoleResult><Credentials><AccessKeyId>${key}</AccessKeyId><SecretAccessKey>${randomBytes(20).toString('hex')}</SecretAccessKey><SessionToken>${randomBytes(32).toString('base64')}</SessionToken><Expiration>${new Date(Date.now() + Number(input.get('DurationSeconds') ?? 3600) * 1000).toISOString()}</Expiration></Credentials><AssumedRoleUser><Arn>${xmlEscape(roleArn.replace(':iam:', ':sts:').replace(':role/', ':assumed-role/'))}/${xmlEscape(session)}</Arn><AssumedRoleId>AROACUSTOMER:${xmlEscape(session)}</AssumedRoleId></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
        );
      });
  }

  function callerIdentity(req: AwsRequest): AwsResponse {
    const roleArn = sessions.get(req.accessKeyId);
    const fn = iam.callerOf(req.accessKeyId);
    if (!roleArn && !fn)
      return xmlError('InvalidClientTokenId', 'The security token included in the request is invalid.');
    const [account, arn] = roleArn
      ? [accountOf(roleArn), roleArn.replace(':iam:', ':sts:').replace(':role/', ':assumed-role/')]
      : [ACCOUNT, `arn:aws:sts::${ACCOUNT}:assumed-role/${fn!.roleId}/${fn!.name}`];
    return xml(
      `<GetCallerIdentityResponse xmlns="${STS_XMLNS}"><GetCallerIdentityResult><Arn>${xmlEscape(arn)}</Arn><UserId>AROALOCAL</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
    );
  }

  const item = (i: CustomerInstance) =>
    `<item><instanceId>${xmlEscape(i.id)}</instanceId><instanceState><code>16</code><name>${i.state ?? 'running'}</name></instanceState>${i.privateIp ? `<privateIpAddress>${i.privateIp}</privateIpAddress>` : ''}<placement><availabilityZone>${i.zone ?? ''}</availabilityZone></placement><tagSet>${i.name ? `<item><key>Name</key><value>${xmlEscape(i.name)}</value></item>` : ''}</tagSet></item>`;
  function describeInstances(req: AwsRequest): AwsResponse {
    const roleArn = sessions.get(req.accessKeyId);
    if (!roleArn) return ec2Error('AuthFailure', 'AWS was not able to validate the provided access credentials', 401);
    const region = /Credential=[^/]+\/[^/]+\/([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const instances = roles.get(roleArn)?.instances[region] ?? [];
    const reservations = instances
      .map(
        (i, n) =>
          `<item><reservationId>r-${n}</reservationId><ownerId>${accountOf(roleArn)}</ownerId><instancesSet>${item(i)}</instancesSet></item>`,
      )
      .join('');
    return xml(
      `<DescribeInstancesResponse xmlns="${EC2_XMLNS}"><requestId>${randomUUID()}</requestId><reservationSet>${reservations}</reservationSet></DescribeInstancesResponse>`,
    );
  }

  const form = (req: AwsRequest) => new URLSearchParams(req.body.toString('utf8'));
  return {
    /** A role in a customer's account whose trust policy demands `externalId`, and the instances it may list, by region. */
    addRole(roleArn: string, externalId: string, instances: Record<string, CustomerInstance[]> = {}) {
      roles.set(roleArn, { externalId, instances });
    },
    async sts(req: AwsRequest): Promise<AwsResponse> {
      const input = form(req);
      const action = input.get('Action');
      if (action === 'AssumeRole') return assumeRole(req, input);
      if (action === 'GetCallerIdentity') return callerIdentity(req);
      return xmlError('UnsupportedOperation', `the local STS does not implement ${action}`, 400);
    },
    async ec2(req: AwsRequest): Promise<AwsResponse> {
      const action = form(req).get('Action');
      if (action === 'DescribeInstances') return describeInstances(req);
      return ec2Error('UnsupportedOperation', `the local EC2 does not implement ${action}`, 400);
    },
  };
}
