import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { stackFunctions, type StackFunction } from '../../infra/cdk/functions.ts';
import { invokeFunction } from '../../infra/local/invoke-function.ts';
import { routeTable } from '../../functions/route-table.ts';
import { appContext } from '#shared/context';
import { issueTicket } from '#shared/progress';
import { PLAN_CATALOGUE } from '#domain/billing';

/**
 * One sample event per function of the stack (`events/<name>.json`, for `npm run
 * invoke` and `sam local invoke -e`), each run through its function's handler, in process, against
 * DynamoDB Local, as `npm run invoke` runs it. test/infra/stack.test.ts holds the list of functions to
 * the synthesized template and to the files in `events/`.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const ref = useTestStack({}, { withoutHttp: true, withS3: true });
const sample = (f: StackFunction) => JSON.parse(readFileSync(join(ROOT, 'events', `${f.name}.json`), 'utf8'));
const invoke = (f: StackFunction, event: unknown) => invokeFunction(f, event, `sample-${f.name}`);
const byName = (name: string) => stackFunctions().find((f) => f.name === name)!;

/**
 * What each HTTP sample answers: as it is (no token: a route behind sign-in answers 401, which also shows the
 * event reached a route of its group, or it would be 404), and with a fresh account's bearer token added (the
 * sample's ids name nothing, so a project-scoped list is 404, or 403 where the domain says so). The login sample's account is registered first.
 */
const HTTP_STATUS: Record<string, { asIs: number; withToken: number }> = {
  auth: { asIs: 200, withToken: 200 },
  admin: { asIs: 401, withToken: 200 },
  billing: { asIs: 200, withToken: 200 },
  projects: { asIs: 401, withToken: 200 },
  environments: { asIs: 401, withToken: 403 },
  structure: { asIs: 401, withToken: 404 },
  services: { asIs: 401, withToken: 404 },
  floors: { asIs: 401, withToken: 404 },
  topology: { asIs: 401, withToken: 404 },
  networks: { asIs: 401, withToken: 404 },
  invites: { asIs: 401, withToken: 404 },
  lifecycle: { asIs: 401, withToken: 200 },
  impex: { asIs: 200, withToken: 200 },
  integrations: { asIs: 401, withToken: 404 },
  webhooks: { asIs: 401, withToken: 404 },
  audit: { asIs: 401, withToken: 200 },
  docs: { asIs: 200, withToken: 200 },
};

describe('the sample events in events/', () => {
  it('has one for every function of the stack, of the shape its trigger sends', () => {
    for (const f of stackFunctions()) {
      const event = sample(f);
      if (f.trigger === 'http') {
        expect(event, f.name).toMatchObject({
          version: '2.0',
          routeKey: expect.any(String),
          rawPath: expect.any(String),
          requestContext: { http: { method: expect.any(String) } },
        });
        // A route of the function's own group (API Gateway sends it nothing else), consistent with its path.
        const route = routeTable[f.name as keyof typeof routeTable].find(
          (r) => `${r.method} ${r.path}` === event.routeKey,
        );
        expect(route, `${f.name}: ${event.routeKey} is not one of its routes`).toBeDefined();
        expect(`${event.requestContext.http.method} ${event.requestContext.http.path}`).toBe(
          `${route!.method} ${event.rawPath}`,
        );
      } else if (f.trigger === 'sqs')
        expect(new Set(event.Records.map((r: { eventSource: string }) => r.eventSource)), f.name).toEqual(
          new Set(['aws:sqs']),
        );
      else if (f.trigger === 'dynamodb-stream')
        expect(
          event.Records.map((r: { eventSource: string; eventName: string }) => `${r.eventSource} ${r.eventName}`),
        ).toEqual(['aws:dynamodb INSERT']);
      else if (f.trigger === 'websocket-authorizer')
        expect(event).toMatchObject({
          type: 'REQUEST',
          methodArn: expect.any(String),
          requestContext: { routeKey: '$connect' },
        });
      else if (f.trigger === 'websocket')
        expect(event.requestContext).toMatchObject({
          routeKey: '$default',
          eventType: 'MESSAGE',
          connectionId: expect.any(String),
        });
      else if (f.trigger === 'schedule')
        expect(event).toMatchObject({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
      else expect(event).toEqual({}); // a CDK Trigger invokes with an empty payload
    }
  });

  it('each HTTP function answers its sample, as is and signed in', async () => {
    const register = byName('auth');
    const login = sample(register) as APIGatewayProxyEventV2;
    // The login sample's account, registered through the same function.
    const registered = (await invoke(register, {
      ...login,
      routeKey: 'POST /auth/register',
      rawPath: '/auth/register',
      requestContext: {
        ...login.requestContext,
        routeKey: 'POST /auth/register',
        http: { ...login.requestContext.http, path: '/auth/register' },
      },
    })) as APIGatewayProxyStructuredResultV2;
    expect(registered.statusCode, registered.body).toBe(201);
    const signedIn = (await invoke(register, login)) as APIGatewayProxyStructuredResultV2;
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const token = JSON.parse(signedIn.body!).access_token as string;
    expect(token).toEqual(expect.any(String));
    const http = stackFunctions().filter((f) => f.trigger === 'http');
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(http.map((f) => f.name).sort());
    const actual: typeof HTTP_STATUS = {};
    for (const f of http) {
      const event = sample(f) as APIGatewayProxyEventV2;
      const asIs = (await invoke(f, event)) as APIGatewayProxyStructuredResultV2;
      const withToken = (await invoke(f, {
        ...event,
        headers: { ...event.headers, authorization: `Bearer ${token}` },
      })) as APIGatewayProxyStructuredResultV2;
      actual[f.name] = { asIs: asIs.statusCode!, withToken: withToken.statusCode! };
    }
    expect(actual).toEqual(HTTP_STATUS);
  });

  it('the workers and the outbox reader take theirs without a failed item', async () => {
    for (const f of stackFunctions().filter((x) => x.trigger === 'sqs' || x.trigger === 'dynamodb-stream')) {
      expect(await invoke(f, sample(f)), f.name).toEqual({ batchItemFailures: [] });
      await ref.stack.queues.drain(); // the outbox reader's event goes on to the events worker
    }
  });

  it('the WebSocket functions: the authorizer denies the sample ticket and allows a real one; the connections function answers a message', async () => {
    const authorizer = byName('progress-authorizer');
    const event = sample(authorizer);
    expect(await invoke(authorizer, event)).toMatchObject({
      principalId: 'anonymous',
      policyDocument: { Statement: [{ Effect: 'Deny', Resource: event.methodArn }] },
    });
    const { ticket } = await issueTicket(appContext(), 'a-user', 'a-job');
    expect(await invoke(authorizer, { ...event, queryStringParameters: { ticket } })).toMatchObject({
      principalId: 'a-user',
      policyDocument: { Statement: [{ Effect: 'Allow' }] },
      context: { userId: 'a-user', jobId: 'a-job' },
    });
    expect(await invoke(byName('progress-connections'), sample(byName('progress-connections')))).toEqual({
      statusCode: 200,
    });
  });

  it('the scheduled sweeps and the seeding function take theirs', async () => {
    for (const f of stackFunctions().filter((x) => x.trigger === 'schedule'))
      expect(await invoke(f, sample(f)), f.name).toEqual({
        done: 0,
        failed: 0,
        ...(f.name === 'webhook-retries' ? { resent: 0 } : {}),
      }); // the webhook sweep also resends waiting outbox items
    expect(await invoke(byName('seed'), sample(byName('seed')))).toEqual({
      plans: PLAN_CATALOGUE.length,
      staff: 'not configured',
      backfilled: {},
    });
  });
});
