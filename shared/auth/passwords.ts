import { config } from '#shared/config';

/**
 * argon2id (the library's default algorithm) at OWASP's baseline: 19 MiB, 2 passes, 1 lane. Test stacks hash at
 * `light` cost (PASSWORD_HASH_COST; never in the cloud): the same code and algorithm, about a thirtieth of the CPU.
 * A check reads the cost from the stored hash, so hashes of either cost verify.
 */
const COSTS = {
  standard: { memoryCost: 19456, timeCost: 2, parallelism: 1 },
  light: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
} as const;

/** The native argon2 addon, loaded on the first password check rather than at every cold start of the functions that bundle it. */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const lib = () => (argon2 ??= import('@node-rs/argon2'));

export const hashPassword = async (password: string) =>
  (await lib()).hash(password, COSTS[config().PASSWORD_HASH_COST]);

export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await (await lib()).verify(storedHash, password);
  } catch {
    return false;
  }
}

/** Hash of a password nobody knows, at each cost: verified against when the account is unknown, so timing matches. */
const decoys = new Map<keyof typeof COSTS, Promise<string>>();
export async function verifyAgainstDecoy(password: string): Promise<false> {
  const cost = config().PASSWORD_HASH_COST;
  if (!decoys.has(cost)) decoys.set(cost, hashPassword(`decoy-${Math.random()}`));
  await verifyPassword(await decoys.get(cost)!, password);
  return false;
}
