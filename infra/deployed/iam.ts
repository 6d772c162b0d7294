import { runSimulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, type Resolver } from './intrinsics.ts';
import type { LambdaFunction } from './lambda-functions.ts';
import { referencedId, resourcesOf, type CloudAssembly } from './template.ts';

type PolicyDocument = { Version?: string; Statement: unknown[] };

/** One call IAM refused: who, what, on which resource. */
export interface Denial {
  functionName: string;
  action: string;
  resource: string;
  at: string;
}

/**
 * The access key the tester's own tools use (inspecting a dead-letter queue, say): the account's
 * administrator, allowed everything, as an operator's credentials would be.
 */
export const OPERATOR_ACCESS_KEY = 'AKIALOCALOPERATOR000';

/** AWS managed policies the template attaches: only what the functions' calls could touch (logs are not a stand-in). */
const MANAGED_POLICIES: Record<string, PolicyDocument> = {
  'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], Resource: '*' },
    ],
  },
};

/**
 * IAM as the cloud applies it to the functions' calls: each call is evaluated by a real policy
 * evaluator (@cloud-copilot/iam-simulate) against the calling function's execution role (its inline
 * and managed policies from the template) and the resource's own policy (a KMS key policy, a queue or
 * bucket policy), before a stand-in answers. Callers are told apart by their access key id. Requests
 * reach the stand-ins over TLS in the cloud: `aws:SecureTransport` is true.
 */
export function createIam(
  assembly: CloudAssembly,
  resolver: Resolver,
  functions: LambdaFunction[],
  opts: { enforce?: boolean; log?: (line: string) => void } = {},
) {
  const enforce = opts.enforce ?? true;
  const byKey = new Map(functions.map((f) => [f.accessKeyId, f]));
  const denials: Denial[] = [];

  const policiesOf = (roleId: string): { name: string; policy: PolicyDocument }[] => {
    const role = assembly.resources[roleId]?.Properties ?? {};
    const attached = resourcesOf(assembly, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties?.Roles ?? []).some((r: unknown) => referencedId(r) === roleId))
      .map(([id, p]) => ({ name: id, policy: resolver.resolve(p.Properties!.PolicyDocument) as PolicyDocument }));
    const inline = ((role.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[]).map((p) => ({
      name: p.PolicyName,
      policy: resolver.resolve(p.PolicyDocument) as PolicyDocument,
    }));
    const managed = (resolver.resolve(role.ManagedPolicyArns ?? []) as string[]).map((arn) => {
      const policy = MANAGED_POLICIES[arn];
      if (!policy) throw new Error(`${roleId}: managed policy ${arn} is not known to the local IAM`);
      return { name: arn, policy };
    });
    return [...attached, ...inline, ...managed];
  };
  const rolePolicies = new Map(functions.map((f) => [f.roleId, policiesOf(f.roleId)]));

  /** Resource policies by the ARN they govern (a bucket's also governs its objects). */
  const resourcePolicies: { arn: string; policy: PolicyDocument }[] = [
    ...resourcesOf(assembly, 'AWS::KMS::Key').map(([id, r]) => ({
      arn: resolver.getAtt(id, 'Arn'),
      policy: resolver.resolve(r.Properties!.KeyPolicy) as PolicyDocument,
    })),
    ...resourcesOf(assembly, 'AWS::SQS::QueuePolicy').flatMap(([, r]) =>
      (r.Properties!.Queues as unknown[]).map((q) => ({
        arn: resolver.getAtt(referencedId(q)!, 'Arn'),
        policy: resolver.resolve(r.Properties!.PolicyDocument) as PolicyDocument,
      })),
    ),
    ...resourcesOf(assembly, 'AWS::S3::BucketPolicy').map(([, r]) => ({
      arn: resolver.getAtt(referencedId(r.Properties!.Bucket)!, 'Arn'),
      policy: resolver.resolve(r.Properties!.PolicyDocument) as PolicyDocument,
    })),
  ];
  const resourcePolicyOf = (resource: string) =>
    resourcePolicies.find((p) => resource === p.arn || resource.startsWith(`${p.arn}/`))?.policy;

  /**
   * The evaluator's verdict for a role, an action, a resource and a context. The policies are fixed for the
   * stack's life, so the same question always gets the same answer: each is evaluated once (evaluating every
   * call was 40 % of the deployed suite's own CPU, mostly matching ARNs to resource types). Bounded: a long
   * `start:deployed` asks about every new object key.
   */
  const verdicts = new Map<string, ReturnType<typeof runSimulation>>();
  const verdict = (roleId: string, action: string, resource: string, context: Record<string, string>) => {
    const key = JSON.stringify([roleId, action, resource, context]);
    let answer = verdicts.get(key);
    if (!answer) {
      if (verdicts.size >= 10_000) verdicts.clear();
      answer = runSimulation(
        {
          request: {
            principal: `arn:aws:iam::${ACCOUNT}:role/${roleId}`,
            action,
            resource: { resource, accountId: ACCOUNT },
            contextVariables: { 'aws:SecureTransport': 'true', ...context },
          },
          identityPolicies: rolePolicies.get(roleId) ?? [],
          resourcePolicy: resourcePolicyOf(resource),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        },
        {},
      );
      verdicts.set(key, answer);
    }
    return answer;
  };

  return {
    denials,
    /** The function an access key belongs to (undefined: the operator's, or an unknown key). */
    callerOf: (accessKeyId: string) => byKey.get(accessKeyId),
    /**
     * Whether the caller may do `action` on `resource`; a refusal is logged with both and recorded.
     * Throws on an unknown access key (nobody but the functions and the operator has credentials).
     */
    async allows(
      accessKeyId: string,
      action: string,
      resource: string,
      context: Record<string, string> = {},
    ): Promise<boolean> {
      if (accessKeyId === OPERATOR_ACCESS_KEY) return true;
      const fn = byKey.get(accessKeyId);
      if (!fn) return false;
      const result = await verdict(fn.roleId, action, resource, context);
      if (result.resultType === 'error')
        throw new Error(`IAM simulation of ${action} on ${resource} failed: ${result.errors.message}`);
      if (result.overallResult === 'Allowed') return true;
      denials.push({ functionName: fn.name, action, resource, at: new Date().toISOString() });
      opts.log?.(
        `IAM DENIED ${fn.logicalId} (${fn.roleId}): ${action} on ${resource} (${result.overallResult})${enforce ? '' : ' (not enforced)'}`,
      );
      return !enforce;
    },
    /** AWS's message for a refused call. */
    message(accessKeyId: string, action: string, resource: string): string {
      const fn = byKey.get(accessKeyId);
      const who = fn
        ? `arn:aws:sts::${ACCOUNT}:assumed-role/${fn.roleId}/${fn.name}`
        : `an unknown access key (${accessKeyId})`;
      return `User: ${who} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
    },
  };
}
export type Iam = ReturnType<typeof createIam>;
