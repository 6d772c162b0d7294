import type { IncomingMessage } from 'node:http';
import type { Json } from '../template.ts';

/** A request to one of the AWS stand-ins, with what SigV4 says of its sender. */
export interface AwsRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The credential scope's service (`sqs`, `kms`, `secretsmanager`, `email`, `dynamodb`, `s3`, `execute-api`). */
  service: string;
  accessKeyId: string;
}

export interface AwsResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One stand-in: what the AWS endpoint hands a request for its service. */
export type ServiceHandler = (req: AwsRequest) => Promise<AwsResponse>;

/**
 * The sender and service of a signed request: `Authorization: AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request`,
 * or a presigned URL's `X-Amz-Credential`. The signature itself is not checked: the key id only tells the callers apart.
 */
export function signer(
  req: Pick<IncomingMessage, 'headers' | 'url'>,
): { accessKeyId: string; service: string } | undefined {
  const auth = req.headers.authorization;
  const credential =
    /Credential=([^,\s]+)/.exec(String(auth ?? ''))?.[1] ??
    new URL(req.url ?? '/', 'http://x').searchParams.get('X-Amz-Credential');
  const [accessKeyId, , , service] = credential?.split('/') ?? [];
  return accessKeyId && service ? { accessKeyId, service } : undefined;
}

/** A JSON-protocol answer (DynamoDB, SQS, KMS, Secrets Manager). */
export const json = (body: unknown, status = 200): AwsResponse => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify(body),
});

/** A JSON-protocol error: `__type` is what the SDK turns into the exception's name. */
export const jsonError = (type: string, message: string, status = 400): AwsResponse => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type },
  body: JSON.stringify({ __type: type, message }),
});

/** The operation of a JSON-protocol request (`X-Amz-Target: TrentService.Encrypt` → `Encrypt`) and its input. */
export function jsonOperation(req: AwsRequest): { operation: string; input: Json } {
  const target = req.headers['x-amz-target'] ?? '';
  return {
    operation: target.slice(target.lastIndexOf('.') + 1),
    input: req.body.length ? JSON.parse(req.body.toString('utf8')) : {},
  };
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
/** A query-protocol (SES) or REST-XML (S3) error. */
export const xmlError = (code: string, message: string, status = 403): AwsResponse => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>local</RequestId></ErrorResponse>`,
});
export { xmlEscape };
