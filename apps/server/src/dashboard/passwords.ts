/**
 * Dashboard passwords: argon2id (CONTRACT 13) with OWASP's recommended minimum cost
 * (19 MiB of memory, 2 passes, 1 lane). That costs about 150 ms on the 2-core machines the
 * service runs on, which an attacker pays per guess and a user pays once per login; the
 * heavier RFC 9106 profile took 600 ms here and four times the memory per concurrent login.
 * The parameters live inside each stored hash (PHC string format), so raising them later
 * applies to new passwords while old hashes keep verifying.
 */
import { argon2id, hash, verify } from "argon2";
import { randomToken } from "../lib/ids.ts";

const OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let verifications = 0;

/** How many password verifications this process has run: lets tests see the dummy check. */
export function passwordVerifications(): number {
  return verifications;
}

/** False for a wrong password and for a hash the library cannot read (never throws on input). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  verifications += 1;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * A login for an unknown email verifies against this hash of a random password, so it takes
 * as long as a login with a known email and a wrong password: the response time does not tell
 * which emails have accounts.
 */
export function dummyPasswordHash(): Promise<string> {
  // A failure is not remembered, so one bad moment does not break every later login.
  dummyHash ??= hashPassword(randomToken(32)).catch((error: unknown) => {
    dummyHash = undefined;
    throw error;
  });
  return dummyHash;
}
