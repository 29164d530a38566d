/**
 * The access token of SCB's partner API: fetched once, shared by every caller, replaced a
 * margin before its stated expiry, and fetched by one caller at a time. Concurrent callers that
 * find no usable token all wait for the same fetch (single flight), so twenty calls at once
 * cost one POST /v1/oauth/token, and a failed fetch is not remembered: the next caller tries
 * again.
 */
import type { Clock } from "../../lib/clock.ts";

export interface AccessToken {
  value: string;
  /** When it was received and when SCB said it stops working (clock ms). */
  issuedAtMs: number;
  expiresAtMs: number;
}

export type TokenFetcher = () => Promise<{ value: string; expiresInMs: number }>;

export class TokenCache {
  private current: AccessToken | undefined;
  private inFlight: Promise<AccessToken> | undefined;

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

  private fresh(token: AccessToken): boolean {
    return this.clock.now().getTime() < token.expiresAtMs - this.marginFor(token);
  }

  /** The margin, but never more than half a short-lived token's life. */
  private marginFor(token: AccessToken): number {
    return Math.min(this.refreshMarginMs, Math.max(0, (token.expiresAtMs - token.issuedAtMs) / 2));
  }

  private refresh(): Promise<AccessToken> {
    if (!this.inFlight) {
      this.inFlight = this.fetchToken()
        .then(({ value, expiresInMs }) => {
          const now = this.clock.now().getTime();
          const token = { value, issuedAtMs: now, expiresAtMs: now + expiresInMs };
          this.current = token;
          return token;
        })
        .finally(() => {
          this.inFlight = undefined;
        });
    }
    return this.inFlight;
  }
}
