/**
 * Rate limit of the public API (interface.md "Limits", CONTRACT 1 and 10): a fixed budget of
 * `config.rateLimitPerMinute` requests per integration per 60-second window (100 in sandbox,
 * 1000 in live, RATE_LIMIT_PER_MINUTE overrides).
 *
 * - Keyed by the authenticated integration, so the limiter runs after the HMAC hook: requests
 *   that fail authentication are refused before they reach it and never spend a merchant's
 *   budget. It runs before the body is refused or validated, so a client sending bad bodies
 *   is limited like any other.
 * - Windows follow the wall clock (`deps.wallClock`), never the business or sandbox test clock.
 * - In memory per process by default; shared by every node in Redis when REDIS_URL is set
 *   (there the window is Redis's key expiry, which is real time too).
 * - A refused request gets 429 RATE_LIMIT_EXCEEDED with metadata { limit, remaining, resetAt,
 *   retryAfter } and Retry-After; every counted response carries X-RateLimit-Limit,
 *   X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the window resets).
 * - When Redis fails the limiter lets requests through (and logs): taking payments matters more
 *   than counting them. That holds at start too: a node started while Redis is down serves, and
 *   counts once Redis answers.
 * - A signed write whose replay record is written in its own transaction is known to be a
 *   replay only after the limiter counted it (http/auth.ts `settleReplay`): its answer, the
 *   replay refusal, gives the request back to the window (`RequestBudget.giveBack`) and carries
 *   no rate-limit headers, as every authentication refusal. A captured request sent again and
 *   again so spends nothing of its merchant's budget.
 */
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import type { Config } from "../config.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { RATE_LIMIT_WINDOW_MS } from "../lib/limits.ts";

export const RATE_LIMIT_REDIS_NAMESPACE = "satang:ratelimit:";

/** The refusal of a request over the limit of `max` per minute, whose window ends in `ttlMs`. */
export function rateLimitExceeded(max: number, ttlMs: number, now: Date): AppError<"RATE_LIMIT_EXCEEDED"> {
  const retryAfter = Math.ceil(ttlMs / 1000);
  return new AppError(
    "RATE_LIMIT_EXCEEDED",
    `Rate limit of ${max} requests per minute exceeded; retry in ${retryAfter} s`,
    {
      limit: max,
      remaining: 0,
      resetAt: new Date(now.getTime() + ttlMs).toISOString(),
      retryAfter,
    },
  );
}

/** Past this many keys, a new window first sweeps the finished ones out of memory. */
const LOCAL_STORE_SWEEP_AT_KEYS = 10_000;

type IncrCallback = Parameters<FastifyRateLimitStore["incr"]>[1];

interface GivingBackStore {
  /** Takes one request back out of the window of `key`, if that window is still open. */
  giveBack(key: string): Promise<void> | void;
}

/**
 * The plugin's own memory store reads Date.now(); this one reads the injected wall clock, so the
 * window is the service's notion of real time and tests can move it without waiting. `made` is
 * told of each store made from it, so the limiter can give a request back to its window.
 */
function wallClockStore(clock: Clock, made: (store: GivingBackStore) => void): FastifyRateLimitStoreCtor {
  class WallClockStore implements FastifyRateLimitStore, GivingBackStore {
    private readonly windows = new Map<string, { count: number; startMs: number }>();

    constructor() {
      made(this);
    }

    giveBack(key: string): void {
      const window = this.windows.get(key);
      if (window && window.count > 0) window.count -= 1;
    }

    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      const nowMs = clock.now().getTime();
      let window = this.windows.get(key);
      if (!window || window.startMs + timeWindow <= nowMs) {
        if (!window && this.windows.size >= LOCAL_STORE_SWEEP_AT_KEYS) this.sweep(nowMs, timeWindow);
        window = { count: 0, startMs: nowMs };
        this.windows.set(key, window);
      }
      window.count += 1;
      callback(null, { current: window.count, ttl: window.startMs + timeWindow - nowMs });
    }

    read(key: string, callback: IncrCallback, timeWindow: number): void {
      const nowMs = clock.now().getTime();
      const window = this.windows.get(key);
      if (!window || window.startMs + timeWindow <= nowMs) callback(null, { current: 0, ttl: 0 });
      else callback(null, { current: window.count, ttl: window.startMs + timeWindow - nowMs });
    }

    child(): FastifyRateLimitStore {
      return new WallClockStore();
    }

    /** Forgets finished windows, so memory follows the integrations active in the last minute. */
    private sweep(nowMs: number, timeWindow: number): void {
      for (const [key, window] of this.windows) {
        if (window.startMs + timeWindow <= nowMs) this.windows.delete(key);
      }
    }
  }
  return WallClockStore;
}

/** REDIS_URL without its password, for the log. */
function redactedRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "redacted";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}

async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // A limiter that waits for a lost Redis would stall every API request: fail the command
    // at once instead, and let the plugin's skipOnError pass the request through.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  let down = false;
  redis.on("error", (err: Error) => {
    // A Redis that stays down is said once, not at every reconnect attempt.
    if (!down) app.log.warn({ err }, "rate-limit Redis error");
    down = true;
  });
  redis.on("ready", () => {
    if (down) app.log.info("rate-limit Redis answers again: the shared limit holds");
    down = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    // The limit is not worth an outage: a node started (restarted, added) while Redis is down
    // serves, letting requests through as when Redis fails later (skipOnError), and counts
    // again once Redis answers (ioredis keeps reconnecting). Said at error level, since until
    // then the limit holds nowhere.
    down = true;
    app.log.error(
      { err, redisUrl: redactedRedisUrl(url) },
      "REDIS_URL: Redis does not answer; requests are let through without the rate limit until it does",
    );
  }
  return redis;
}

/**
 * Takes one request back out of a key's window in Redis: only while the window (the key with
 * its expiry) exists and holds a count, so a window that ended meanwhile is not made again
 * without an expiry.
 */
const GIVE_BACK_LUA = `
  local current = tonumber(redis.call('GET', KEYS[1]))
  if current and current > 0 and redis.call('PTTL', KEYS[1]) > 0 then
    return redis.call('DECR', KEYS[1])
  end
  return current or 0
`;

function redisGiveBack(app: FastifyInstance, redis: Redis): GivingBackStore {
  return {
    giveBack: async (key) => {
      try {
        await redis.eval(GIVE_BACK_LUA, 1, `${RATE_LIMIT_REDIS_NAMESPACE}${key}`);
      } catch (err) {
        app.log.warn({ err }, "rate-limit Redis error");
      }
    },
  };
}

function integrationKey(request: FastifyRequest): string {
  // Authentication has always set this by now; the address is only a defensive fallback.
  return request.auth ? request.auth.integration.id : `ip:${request.ip}`;
}

/**
 * Installs the limiter on the /api/v1 scope. Call it after the authentication hook is added:
 * the limiter is a preValidation hook of this scope, and hooks run in the order they were added.
 */
interface RateLimitContext {
  config: Pick<Config, "rateLimitPerMinute" | "redisUrl">;
  /** Windows follow real time, never a sandbox test clock. */
  wallClock: Clock;
}

/** The limiter's hold on a request it counted. */
export interface RequestBudget {
  /**
   * The request turned out to be refused by authentication after it was counted (a replayed
   * write): it is taken back out of its window, and its answer loses the rate-limit headers.
   */
  giveBack(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

const RATE_LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"];

export async function registerRateLimit(
  api: FastifyInstance,
  deps: RateLimitContext,
): Promise<RequestBudget> {
  const max = deps.config.rateLimitPerMinute;
  const redis = deps.config.redisUrl ? await connectRedis(api, deps.config.redisUrl) : undefined;
  if (redis) {
    api.addHook("onClose", async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  }
  let store: GivingBackStore | undefined = redis ? redisGiveBack(api, redis) : undefined;

  await api.register(rateLimit, {
    // Hooks are added below, in order, rather than per route by the plugin: route-level hooks
    // would run after every scope hook, including the refusal of unparsed bodies.
    global: false,
    // Only for a route that sets its own `config.rateLimit`; the scope hook below is the main one.
    hook: "preValidation",
    max,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: integrationKey,
    ...(redis
      ? { redis, nameSpace: RATE_LIMIT_REDIS_NAMESPACE, skipOnError: true }
      : {
          // The plugin's own store; a child made for a route's own limit is not given back to.
          store: wallClockStore(deps.wallClock, (made) => {
            store ??= made;
          }),
        }),
    addHeaders: {
      "x-ratelimit-limit": true,
      "x-ratelimit-remaining": true,
      "x-ratelimit-reset": true,
      "retry-after": true,
    },
    addHeadersOnExceeding: {
      "x-ratelimit-limit": true,
      "x-ratelimit-remaining": true,
      "x-ratelimit-reset": true,
    },
    errorResponseBuilder: (_request, context) =>
      rateLimitExceeded(context.max, context.ttl, deps.wallClock.now()),
  });
  api.addHook("preValidation", api.rateLimit());
  return {
    giveBack: async (request, reply) => {
      for (const name of RATE_LIMIT_HEADERS) reply.removeHeader(name);
      if (request.auth) await store?.giveBack(integrationKey(request));
    },
  };
}
