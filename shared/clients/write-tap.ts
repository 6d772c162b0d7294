/**
 * The local runtime's view of what the table stream would carry: the keys of the items each successful
 * write of this process touched, handed to whoever tapped them (the local stand-in for the topology's
 * stream reader, infra/local/topology-stream.ts). In the cloud nothing taps: the middleware passes
 * every call through untouched.
 */
type Written = { PK?: unknown; SK?: unknown };
type Tap = { written: (keys: Written[]) => void; settle: () => Promise<void> };
const taps = new Set<Tap>();

/** Taps the writes of this process; answers how to stop. `settle` is what `settleTaps` waits for. */
export function tapWrites(tap: Tap): () => void {
  taps.add(tap);
  return () => void taps.delete(tap);
}

/** Waits until every tap has dealt with the writes it was handed (a read that must see them, locally). */
export async function settleTaps(): Promise<void> {
  await Promise.all([...taps].map((t) => t.settle()));
}

/** A key attribute as the document client (a plain string) or the low-level client (`{ S }`) carries it. */
const plain = (v: unknown) => (v && typeof v === 'object' && 'S' in v ? (v as { S: unknown }).S : v);
const keyOf = (item: unknown): Written | undefined => {
  if (!item || typeof item !== 'object') return undefined;
  const { PK, SK } = item as Written;
  return { PK: plain(PK), SK: plain(SK) };
};

type WriteInput = {
  Item?: unknown;
  Key?: unknown;
  TransactItems?: { Put?: { Item: unknown }; Update?: { Key: unknown }; Delete?: { Key: unknown } }[];
  RequestItems?: Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>;
};
/** The keys a write request names: Put's item, Update's and Delete's key, a transaction's and a batch's. */
function writtenKeys(command: string, input: WriteInput): Written[] {
  const found: (Written | undefined)[] = [];
  if (command.startsWith('Put')) found.push(keyOf(input.Item));
  if (command.startsWith('Update') || command.startsWith('Delete')) found.push(keyOf(input.Key));
  for (const t of input.TransactItems ?? []) found.push(keyOf(t.Put?.Item), keyOf(t.Update?.Key), keyOf(t.Delete?.Key));
  for (const requests of Object.values(input.RequestItems ?? {}))
    for (const r of requests) found.push(keyOf(r.PutRequest?.Item), keyOf(r.DeleteRequest?.Key));
  return found.filter((k): k is Written => !!k);
}

const WRITES = /^(Put|Update|Delete|TransactWrite|BatchWrite)(Item|Items)?Command$/;

type Stack = { add: (mw: unknown, opts: { step: string; priority: string; name: string }) => void };
/** Adds the tap to a DynamoDB client: after a write succeeds, its keys go to every tap. */
export function withWriteTap<T>(client: T): T {
  (client as { middlewareStack?: Stack }).middlewareStack?.add(
    (next: (args: { input: WriteInput }) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: WriteInput }) => {
        const result = await next(args);
        if (taps.size && WRITES.test(context.commandName ?? '')) {
          const written = writtenKeys(context.commandName ?? '', args.input);
          for (const tap of taps) tap.written(written);
        }
        return result;
      },
    { step: 'initialize', priority: 'low', name: 'writeTap' },
  );
  return client;
}
