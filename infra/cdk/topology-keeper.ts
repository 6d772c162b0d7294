import { Duration } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SINGLE_FUNCTIONS } from './functions.ts';
import type { Lambdas } from './lambdas.ts';
import { WORKER_TIMEOUT } from './workers.ts';

/** The sort keys of the items the topology draws (shared/domain/catalog/topology/snapshot/rows.ts). */
const DRAWN = ['SERVICE#', 'GROUP#', 'FLOOR#', 'NETWORK#', 'CONN#', 'LINK#'];

/**
 * The topology snapshots' keeper: the table's stream, filtered (by Lambda, not billed) to the items
 * the topology draws, into their environments' snapshots. Its own mapping beside the outbox's, so a
 * failing snapshot never holds back events and mail. Batches of up to 500 records gathered for up to
 * a second (an import's thousands of writes become a few rebuilds); a failing batch is bisected and
 * tried 10 times, then left to the repair on read. Grants: the table, read off its bundle.
 */
export function addTopologyKeeper(lambdas: Lambdas, table: Table): NodejsFunction {
  const { id, entry } = SINGLE_FUNCTIONS.topologyKeeper;
  const keeper = lambdas.fn(id, entry, 512, WORKER_TIMEOUT);
  keeper.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: StartingPosition.LATEST,
      batchSize: 500,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: 10,
      filters: [
        FilterCriteria.filter({
          dynamodb: { Keys: { PK: { S: [{ prefix: 'PROJECT#' }] }, SK: { S: DRAWN.map((prefix) => ({ prefix })) } } },
        }),
      ],
    }),
  );
  return keeper;
}
