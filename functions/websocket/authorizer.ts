import type { APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult } from 'aws-lambda';
import { spendTicket } from '#shared/progress';
import { appContext } from '#shared/context';
import { invocation } from '#shared/observe';

/**
 * The progress WebSocket API (cloud). `$connect` is guarded by a REQUEST authorizer that spends the
 * single-use ticket in `?ticket=` (the same check the local server makes); the route then records
 * the connection for its job, and `$disconnect` forgets it.
 */
export const handler = (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  invocation({ correlationId: event.requestContext?.requestId, dimensions: { route: '$connect' } }, () =>
    authorize(event),
  );

async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  try {
    const who = await spendTicket(appContext(), event.queryStringParameters?.ticket);
    return {
      principalId: who.userId,
      policyDocument: policy('Allow', event.methodArn),
      // Authorizer context values are flat strings: a live binding travels as JSON.
      context: {
        userId: who.userId,
        ...(who.jobId ? { jobId: who.jobId } : {}),
        ...(who.live ? { live: JSON.stringify(who.live) } : {}),
      },
    };
  } catch {
    return { principalId: 'anonymous', policyDocument: policy('Deny', event.methodArn) };
  }
}

const policy = (Effect: 'Allow' | 'Deny', Resource: string) => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect, Resource }],
});
