import type { Iam } from '../iam.ts';
import { ACCOUNT, REGION } from '../intrinsics.ts';
import type { Json } from '../template.ts';
import { jsonError, jsonOperation, type AwsRequest, type AwsResponse } from './aws-request.ts';
import { forward } from './forward.ts';
import { localDynamoCredentials } from '../../local/dynamo.ts';

const tableArn = (table: string, index?: string) =>
  `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}${index ? `/index/${index}` : ''}`;
/** A transaction's item kind → the action IAM checks for it (a transaction is authorized item by item). */
const TRANSACT_ACTIONS = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
} as const;

/** The actions and resources one DynamoDB request needs, as IAM authorizes it. */
export function dynamoChecks(operation: string, input: Json): { action: string; resource: string }[] {
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem')
    return Object.keys(input.RequestItems ?? {}).map((t) => ({
      action: `dynamodb:${operation}`,
      resource: tableArn(t),
    }));
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    return (input.TransactItems as Record<string, { TableName: string }>[]).flatMap((item) =>
      Object.entries(item).map(([kind, v]) => ({
        action: `dynamodb:${TRANSACT_ACTIONS[kind as keyof typeof TRANSACT_ACTIONS]}`,
        resource: tableArn(v.TableName),
      })),
    );
  }
  return [{ action: `dynamodb:${operation}`, resource: tableArn(String(input.TableName), input.IndexName) }];
}

/**
 * DynamoDB Local behind IAM: every request is authorized for its caller, then passed on as the operator's
 * (`localDynamoCredentials`): DynamoDB Local checks no signature, but keeps its tables per access key.
 */
export function createDynamoProxy(upstream: string, iam: Iam) {
  return async function dynamodb(req: AwsRequest): Promise<AwsResponse> {
    const { operation, input } = jsonOperation(req);
    for (const { action, resource } of dynamoChecks(operation, input)) {
      if (!(await iam.allows(req.accessKeyId, action, resource)))
        return jsonError(
          'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
          iam.message(req.accessKeyId, action, resource),
        );
    }
    const { accessKeyId } = localDynamoCredentials();
    const authorization = req.headers.authorization?.replace(/Credential=[^/,\s]+\//, `Credential=${accessKeyId}/`);
    return forward(upstream, { ...req, headers: { ...req.headers, ...(authorization ? { authorization } : {}) } });
  };
}
