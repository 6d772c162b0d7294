import { Duration, type Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  LogGroupLogDestination,
  type HttpStage,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { FALLBACK_GROUP, routeTable } from '../../functions/route-table.ts';
import { ack } from './bundling.ts';
import { httpFunction, httpFunctionGroups, pascal } from './functions.ts';
import type { Lambdas } from './lambdas.ts';

const HTTP_TIMEOUT = Duration.seconds(29); // API Gateway HTTP APIs give up after 30 s anyway

/** The HTTP API and its `$default` stage with JSON access logs, in the stack's own scope (routes come with the functions: `addHttpFunctions`). */
export function createHttpApi(stack: Stack): { api: HttpApi; stage: HttpStage } {
  const api = new HttpApi(stack, 'Api', { createDefaultStage: false });
  const apiLogs = new LogGroup(stack, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS });
  const stage = api.addStage('Stage', {
    stageName: '$default',
    autoDeploy: true,
    accessLogSettings: {
      destination: new LogGroupLogDestination(apiLogs),
      format: AccessLogFormat.custom(
        JSON.stringify({
          requestId: '$context.requestId',
          ip: '$context.identity.sourceIp',
          method: '$context.httpMethod',
          path: '$context.path',
          routeKey: '$context.routeKey',
          status: '$context.status',
          latencyMs: '$context.responseLatency',
          userAgent: '$context.identity.userAgent',
          integrationError: '$context.integrationErrorMessage',
        }),
      ),
    },
  });
  ack(
    api,
    'APIG4',
    "Authorization is enforced in the Lambda router from each route's declared auth level (JWT access tokens issued by this API); public routes must be reachable anonymously.",
  );
  return { api, stage };
}

/** One function per route group that has routes; the group's integration serves all its routes. Answers the functions by group. */
export function addHttpFunctions(api: HttpApi, lambdas: Lambdas): Record<string, NodejsFunction> {
  const functions: Record<string, NodejsFunction> = {};
  for (const group of httpFunctionGroups()) {
    const routes = routeTable[group];
    // 1024 MB: argon2id hashing is CPU-bound, and Lambda CPU scales with memory.
    const { id: fnId, entry: fnEntry } = httpFunction(group);
    const f = lambdas.fn(fnId, fnEntry, 1024, HTTP_TIMEOUT);
    functions[group] = f;
    // One invoke permission per function (not per route): Lambda resource policies are capped at 20 KB.
    const integration = new HttpLambdaIntegration(`${pascal(group)}Integration`, f, { scopePermissionToRoute: false });
    for (const r of routes) api.addRoutes({ path: r.path, methods: [HttpMethod[r.method]], integration });
    // Anything API Gateway has no route for reaches our router, which answers with our own 404 body.
    if (group === FALLBACK_GROUP)
      new HttpRoute(api, 'DefaultRoute', { httpApi: api, routeKey: HttpRouteKey.DEFAULT, integration });
  }
  return functions;
}
