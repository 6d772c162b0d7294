import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Iam } from './iam.ts';
import { ACCOUNT, REGION, type Resolver } from './intrinsics.ts';
import { jsonError, type AwsRequest, type AwsResponse } from './stand-ins/aws-request.ts';
import { referencedId, resourcesOf, type CloudAssembly } from './template.ts';

type Invoke = (functionId: string, event: unknown) => Promise<unknown>;

/** The first function an intrinsic names by `Fn::GetAtt [fn, Arn]` (an authorizer's URI is a Join around it). */
function functionIn(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(functionIn).find(Boolean);
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (Array.isArray(v['Fn::GetAtt']) && v['Fn::GetAtt'][1] === 'Arn') return String(v['Fn::GetAtt'][0]);
  return Object.values(v).map(functionIn).find(Boolean);
}

/**
 * A WebSocket API of the template (`ProtocolType: WEBSOCKET`): `$connect` behind its REQUEST authorizer
 * (no identity source in the request: 401 without asking it; a Deny: 403), then its integration; each
 * message to `$default` (one at a time per connection); `$disconnect` when the socket closes. The API
 * Gateway Management API's PostToConnection (`POST <stage>/@connections/<id>`, authorized as
 * `execute-api:ManageConnections`) sends to the connection, or answers 410 Gone.
 */
export function webSocketApi(
  assembly: CloudAssembly,
  resolver: Resolver,
  apiLogicalId: string,
  invoke: Invoke,
  iam: Iam,
  log: (line: string) => void,
) {
  const apiId = resolver.ref(apiLogicalId);
  const ofApi = (type: string) =>
    resourcesOf(assembly, type).filter(([, r]) => referencedId(r.Properties!.ApiId) === apiLogicalId);
  const stage = String(ofApi('AWS::ApiGatewayV2::Stage')[0]?.[1].Properties?.StageName ?? '$default');
  const routes = new Map(
    ofApi('AWS::ApiGatewayV2::Route').map(([, r]) => {
      const integrationId = String(resolver.resolve(r.Properties!.Target)).replace(/^integrations\//, '');
      const authorizer = r.Properties!.AuthorizerId
        ? assembly.resources[referencedId(r.Properties!.AuthorizerId)!]?.Properties
        : undefined;
      return [
        String(r.Properties!.RouteKey),
        {
          functionId: functionIn(assembly.resources[integrationId]?.Properties?.IntegrationUri)!,
          authorizer: authorizer && {
            functionId: functionIn(authorizer.AuthorizerUri)!,
            identitySource: (authorizer.IdentitySource ?? []) as string[],
          },
        },
      ];
    }),
  );
  const sockets = new Map<string, WebSocket>();
  const wss = new WebSocketServer({ noServer: true });
  const context = (routeKey: string, eventType: string, connectionId: string, extra: Record<string, unknown> = {}) => ({
    routeKey,
    eventType,
    connectionId,
    apiId,
    stage,
    domainName: `${apiId}.execute-api.${REGION}.amazonaws.com`,
    requestId: randomUUID(),
    connectedAt: Date.now(),
    ...extra,
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const refuse = (status: number, reason: string) =>
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    const url = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(url.searchParams);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const connectionId = randomUUID().replace(/-/g, '').slice(0, 16);
    const route = routes.get('$connect');
    let authorizerContext: Record<string, unknown> = {};
    if (route?.authorizer) {
      const missing = route.authorizer.identitySource.some(
        (s) => s.startsWith('route.request.querystring.') && !query[s.slice('route.request.querystring.'.length)],
      );
      if (missing) return void refuse(401, 'Unauthorized');
      const methodArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${apiId}/${stage}/$connect`;
      const out = (await invoke(route.authorizer.functionId, {
        type: 'REQUEST',
        methodArn,
        headers,
        queryStringParameters: query,
        requestContext: context('$connect', 'CONNECT', connectionId),
      }).catch(() => undefined)) as
        | {
            principalId?: string;
            policyDocument?: { Statement: { Effect: string }[] };
            context?: Record<string, unknown>;
          }
        | undefined;
      if (!out) return void refuse(500, 'Internal Server Error');
      if (!out.policyDocument?.Statement.every((s) => s.Effect === 'Allow')) return void refuse(403, 'Forbidden');
      authorizerContext = { ...out.context, principalId: out.principalId };
    }
    const requestContext = context('$connect', 'CONNECT', connectionId, { authorizer: authorizerContext });
    const connected = route
      ? ((await invoke(route.functionId, {
          requestContext,
          headers,
          queryStringParameters: query,
          isBase64Encoded: false,
        }).catch(() => undefined)) as { statusCode?: number } | undefined)
      : { statusCode: 200 };
    if (!connected || (connected.statusCode ?? 200) >= 300)
      return void refuse(connected?.statusCode ?? 500, 'Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(connectionId, ws);
      let turn = Promise.resolve();
      const then = (routeKey: string, eventType: string, body?: string) => {
        const r = routes.get(routeKey) ?? routes.get('$default');
        if (!r) return;
        turn = turn
          .then(() =>
            invoke(r.functionId, {
              requestContext: context(routeKey, eventType, connectionId, { authorizer: authorizerContext }),
              body,
              isBase64Encoded: false,
            }),
          )
          .then(
            () => undefined,
            (err: Error) => log(`${routeKey} of ${connectionId} failed: ${err.message}`),
          );
      };
      ws.on('message', (data) => then('$default', 'MESSAGE', String(data)));
      ws.on('close', () => {
        sockets.delete(connectionId);
        then('$disconnect', 'DISCONNECT');
      });
    });
  }

  /** The management API: `POST /execute-api/<api>/<stage>/@connections/<id>` (its callback URL, resolved to the AWS endpoint). */
  async function manage(req: AwsRequest): Promise<AwsResponse> {
    const m = /^\/execute-api\/(\w+)\/([^/]+)\/@connections\/([^/?]+)/.exec(req.url);
    if (!m || m[1] !== apiId) return jsonError('NotFoundException', 'no such API', 404);
    const connectionId = decodeURIComponent(m[3]);
    const resource = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${apiId}/${m[2]}/${req.method}/@connections/${connectionId}`;
    if (!(await iam.allows(req.accessKeyId, 'execute-api:ManageConnections', resource)))
      return jsonError(
        'AccessDeniedException',
        iam.message(req.accessKeyId, 'execute-api:ManageConnections', resource),
        403,
      );
    const ws = sockets.get(connectionId);
    if (!ws || ws.readyState !== WebSocket.OPEN) return jsonError('GoneException', '', 410);
    if (req.method === 'POST') ws.send(req.body.toString('utf8'));
    else if (req.method === 'DELETE') ws.close();
    return { status: 200 };
  }

  return {
    apiId,
    upgrade,
    manage,
    stop: () => {
      for (const ws of sockets.values()) ws.terminate();
    },
  };
}
