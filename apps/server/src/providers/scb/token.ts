/**
 * The access token of SCB's partner API: fetched once, shared by every caller, replaced a
 * margin before its stated expiry, and fetched by one caller at a time. Concurrent callers that
 * find no usable token all wait for the same fetch (single flight), so twenty calls at once
 * cost one POST /v1/oauth/token.
 *
 * A failed fetch is shared too: for a backoff period after it, every caller gets the same
 * failure at once, without asking SCB again. The period starts at SCB_TOKEN_BACKOFF_MIN_MS,
 * doubles with each failure in a row and stops growing at SCB_TOKEN_BACKOFF_MAX_MS; a fetch that
 * succeeds ends it. During an outage of SCB's token endpoint the service therefore asks for a
 * token at most once per period, not once per call.
 */
import type { Clock } from "../../lib/clock.ts";
import { SCB_TOKEN_BACKOFF_MAX_MS, SCB_TOKEN_BACKOFF_MIN_MS } from "./limits.ts";

export interface AccessToken {
  value: string;
  /** When it was received and when SCB said it stops working (clock ms). */
  issuedAtMs: number;
  expiresAtMs: number;
}

export type TokenFetcher = () => Promise<{ value: string; expiresInMs: number }>;

/** The last fetch failed: its error is every caller's answer until `untilMs`. */
interface SharedFailure {
  error: unknown;
  untilMs: number;
}

/** The backoff after `failures` failed fetches in a row (1, 2, 3, ...). */
export function tokenBackoffMs(failures: number): number {
  const doublings = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(SCB_TOKEN_BACKOFF_MIN_MS * 2 ** doublings, SCB_TOKEN_BACKOFF_MAX_MS);
}

export class TokenCache {
  private current: AccessToken | undefined;
  private inFlight: Promise<AccessToken> | undefined;
  private failure: SharedFailure | undefined;
  private failuresInRow = 0;

  constructor(
    private readonly fetchToken: TokenFetcher,
    private readonly clock: Clock,
    private readonly refreshMarginMs: number,
  ) {}

  /** A token that is not within the margin of its expiry, fetching one if needed. */
  async get(): Promise<string> {
    const token = this.current;
    if (token && this.fresh(token)) return token.value;
    return (await this.refresh()).value;
  }

  /**
   * Drops `rejected` (SCB refused it before its stated expiry) and fetches a new token, unless
   * another caller already replaced it: then that newer token is used, so a burst of refusals
   * of one token still costs one fetch.
   */
  async replace(rejected: string): Promise<string> {
    if (this.current && this.current.value !== rejected) return this.current.value;
    if (this.current?.value === rejected) this.current = undefined;
    return (await this.refresh()).value;
  }

  /** How long callers still share the last failure (0 when none is shared). */
  backoffRemainingMs(): number {
    if (!this.failure) return 0;
    return Math.max(0, this.failure.untilMs - this.clock.now().getTime());
  }

  private fresh(token: AccessToken): boolean {
    return this.clock.now().getTime() < token.expiresAtMs - this.marginFor(token);
  }

  /** The margin, but never more than half a short-lived token's life. */
  private marginFor(token: AccessToken): number {
    return Math.min(this.refreshMarginMs, Math.max(0, (token.expiresAtMs - token.issuedAtMs) / 2));
  }

  private refresh(): Promise<AccessToken> {
    if (this.inFlight) return this.inFlight;
    if (this.failure && this.clock.now().getTime() < this.failure.untilMs) {
      return Promise.reject(this.failure.error);
    }
    this.inFlight = this.fetchToken()
      .then(
        ({ value, expiresInMs }) => {
          const now = this.clock.now().getTime();
          const token = { value, issuedAtMs: now, expiresAtMs: now + expiresInMs };
          this.current = token;
          this.failure = undefined;
          this.failuresInRow = 0;
          return token;
        },
        (error: unknown) => {
          this.failuresInRow += 1;
          this.failure = {
            error,
            untilMs: this.clock.now().getTime() + tokenBackoffMs(this.failuresInRow),
          };
          throw error;
        },
      )
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}
