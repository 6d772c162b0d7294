import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createRouter, type Routable } from '#http/router';
import { readBody, requestEvent, send } from '../local/http-io.ts';
import type { Resolver } from './intrinsics.ts';
import { referencedId, resourcesOf, type CloudAssembly } from './template.ts';

type Method = Routable['method'];
interface ApiRoute {
  method: Method;
  path: string;
  routeKey: string;
  functionId: string;
}

/** An answer API Gateway gives itself (no route, the integration failed), with its request id header. */
const gatewayAnswer = (statusCode: number, message: string, requestId: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'apigw-requestid': requestId },
  body: JSON.stringify({ message }),
});

/** The Lambda function an integration invokes (`IntegrationUri: { Fn::GetAtt: [fn, Arn] }`, payload format 2.0 only). */
function integrationTarget(assembly: CloudAssembly, resolver: Resolver, target: unknown): string {
  const integrationId = String(resolver.resolve(target)).replace(/^integrations\//, '');
  const integration = assembly.resources[integrationId]?.Properties;
  if (integration?.IntegrationType !== 'AWS_PROXY' || integration.PayloadFormatVersion !== '2.0')
    throw new Error(`${integrationId}: only Lambda proxy integrations with payload 2.0 are served`);
  const fn = referencedId(integration.IntegrationUri);
  if (!fn) throw new Error(`${integrationId}: no function`);
  return fn;
}

/**
 * An HTTP API of the template (`AWS::ApiGatewayV2::Api`, protocol HTTP): its routes and their Lambda
 * integrations, `$default` for what no route matches (literal segments before parameters, as API
 * Gateway matches), each request handed to the route's function as a payload 2.0 event.
 */
export function httpApi(
  assembly: CloudAssembly,
  resolver: Resolver,
  apiId: string,
  invoke: (functionId: string, event: unknown) => Promise<unknown>,
) {
  const routes: ApiRoute[] = [];
  let fallback: string | undefined;
  for (const [, r] of resourcesOf(assembly, 'AWS::ApiGatewayV2::Route')) {
    if (referencedId(r.Properties!.ApiId) !== apiId) continue;
    const key = String(r.Properties!.RouteKey);
    const functionId = integrationTarget(assembly, resolver, r.Properties!.Target);
    if (key === '$default') fallback = functionId;
    else {
      const [method, path] = key.split(' ');
      routes.push({ method: method as Method, path, routeKey: key, functionId });
    }
  }
  const router = createRouter(routes);

  return {
    routes,
    /** Answers one request, as API Gateway would (the caller has decided it belongs to this API). */
    async handle(req: IncomingMessage, res: ServerResponse, extraHeaders: Record<string, string> = {}): Promise<void> {
      const requestId = randomUUID();
      const body = await readBody(req);
      if (!body) return send(res, gatewayAnswer(413, 'Request Entity Too Large', requestId));
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const match = router.match(req.method ?? 'GET', path);
      const functionId = match?.route.functionId ?? fallback;
      if (!functionId) return send(res, gatewayAnswer(404, 'Not Found', requestId));
      Object.assign(req.headers, extraHeaders);
      const event = requestEvent(req, body, match?.route.routeKey, match?.params ?? {});
      event.requestContext.requestId = requestId;
      try {
        const result = (await invoke(functionId, event)) as APIGatewayProxyStructuredResultV2;
        send(res, { ...result, headers: { ...result.headers, 'apigw-requestid': requestId } });
      } catch {
        send(res, gatewayAnswer(500, 'Internal Server Error', requestId));
      }
    },
  };
}
