import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadConfig } from '#shared/config';
import type { Iam } from '../../infra/deployed/iam.ts';
import { createDynamoProxy } from '../../infra/deployed/stand-ins/dynamodb-proxy.ts';
import { localDynamoCredentials } from '../../infra/local/dynamo.ts';

/** DynamoDB Local keeps a database per access key: start:deployed's proxy must hand it every function's request as one caller's. */
describe("start:deployed's DynamoDB proxy", () => {
  const seen: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => res.end('{}'));
  });
  const allowAll = { allows: async () => true, message: () => '' } as unknown as Iam;
  let proxy: ReturnType<typeof createDynamoProxy>;
  beforeAll(async () => {
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    proxy = createDynamoProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, allowAll);
  });
  afterAll(() => upstream.close());

  it("passes a function's request on as the operator's key, the rest of its signature as it was", async () => {
    const scope = '20261129/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-target, Signature=abc123';
    const body = Buffer.from(JSON.stringify({ TableName: 'Table', Key: { PK: { S: 'a' } } }));
    const answer = await proxy({
      method: 'POST',
      url: '/',
      headers: {
        authorization: `AWS4-HMAC-SHA256 Credential=AKIDFUNCTION1/${scope}`,
        'x-amz-target': 'DynamoDB_20120810.GetItem',
      },
      body,
      service: 'dynamodb',
      accessKeyId: 'AKIDFUNCTION1',
    });
    expect(answer.status).toBe(200);
    expect(seen.at(-1)?.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=${localDynamoCredentials().accessKeyId}/${scope}`,
    );
    expect(seen.at(-1)?.['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
  });
});

describe('the access key sent to DynamoDB Local (DYNAMODB_LOCAL_ACCESS_KEY)', () => {
  afterAll(() => reloadConfig());

  it("is the worker's own in a test run, and one DynamoDB Local would refuse is refused at start, the variable named", () => {
    expect(reloadConfig().DYNAMODB_LOCAL_ACCESS_KEY).toMatch(/^testworker\d+$/);
    expect(() => reloadConfig({ DYNAMODB_LOCAL_ACCESS_KEY: 'test-1' })).toThrow(
      /DYNAMODB_LOCAL_ACCESS_KEY[\s\S]*letters and digits/,
    );
  });
});
