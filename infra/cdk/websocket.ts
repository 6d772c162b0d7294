import { Duration, type Stack } from 'aws-cdk-lib';
import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { ack } from './bundling.ts';
import { SINGLE_FUNCTIONS } from './functions.ts';
import type { Lambdas } from './lambdas.ts';

/** Live progress of jobs: the WebSocket API and its stage. */
export interface Progress {
  progressApi: WebSocketApi;
  progressStage: WebSocketStage;
}

/** The progress WebSocket API and its stage, in the stack's own scope; created before the functions (every function learns its URLs), its routes after (`addProgressRoutes`). */
export function createProgressApi(stack: Stack): Progress {
  const progressApi = new WebSocketApi(stack, 'ProgressApi', { description: 'Live progress of import/export jobs' });
  const progressStage = new WebSocketStage(stack, 'ProgressStage', {
    webSocketApi: progressApi,
    stageName: 'progress',
    autoDeploy: true,
  });
  return { progressApi, progressStage };
}

/** `$connect` with a single-use ticket (the authorizer function), `$disconnect` and `$default` to the connections function. */
export function addProgressRoutes(lambdas: Lambdas, { progressApi, progressStage }: Progress): void {
  const wsAuthorizer = lambdas.fn(
    SINGLE_FUNCTIONS.progressAuthorizer.id,
    SINGLE_FUNCTIONS.progressAuthorizer.entry,
    256,
    Duration.seconds(10),
  );
  const wsHandler = lambdas.fn(
    SINGLE_FUNCTIONS.progressConnections.id,
    SINGLE_FUNCTIONS.progressConnections.entry,
    256,
    Duration.seconds(10),
  );
  const wsIntegration = new WebSocketLambdaIntegration('ProgressConnections', wsHandler);
  progressApi.addRoute('$connect', {
    integration: wsIntegration,
    authorizer: new WebSocketLambdaAuthorizer('ProgressTicket', wsAuthorizer, {
      identitySource: ['route.request.querystring.ticket'],
    }),
  });
  progressApi.addRoute('$disconnect', { integration: wsIntegration });
  // Any message asks for the job's current state (a client that connects late still learns it).
  progressApi.addRoute('$default', { integration: wsIntegration });
  ack(
    progressApi,
    'APIG4',
    '$connect is authorized by the ticket authorizer; $disconnect needs none (API Gateway sends it).',
  );
  ack(
    progressStage,
    'APIG1',
    'Connection events are logged by the connection functions; per-frame access logs would add nothing for a one-way progress channel.',
  );
}
