import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * An item's image off the table stream, converted attribute by attribute: an attribute that cannot be
 * converted (a binary one, such as a topology snapshot's gzipped bucket, as DynamoDB Local's stream and
 * its Lambda event hand it) is left out instead of refusing the whole batch. Nothing that reads the
 * stream's images reads a binary attribute.
 */
export function streamImage(i: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!i) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(i)) {
    try {
      Object.assign(out, unmarshall({ [name]: value as AttributeValue }));
    } catch {
      // left out: see above
    }
  }
  return out;
}
