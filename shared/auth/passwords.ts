/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. argon2id is the library's default algorithm. */
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** The native argon2 addon, loaded on the first password check rather than at every cold start of the functions that bundle it. */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const lib = () => (argon2 ??= import('@node-rs/argon2'));

export const hashPassword = async (password: string) => (await lib()).hash(password, OPTIONS);

export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await (await lib()).verify(storedHash, password);
  } catch {
    return false;
  }
}

/** Hash of a password nobody knows: verified against when the account is unknown, so timing matches. */
let decoy: Promise<string> | undefined;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  await verifyPassword(await decoy, password);
  return false;
}
