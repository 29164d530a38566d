/**
 * Authentication without a database round trip: the integration of an API key and its
 * merchant, kept in process memory (bounded, least recently used out first) so that a signed
 * request reads nothing before its own work.
 *
 * What is kept is forgotten when it may have changed (db/changes.ts): at once when this
 * process updates or deletes a merchant or an integration, and within a moment on every
 * process when such a change commits anywhere (PostgreSQL LISTEN/NOTIFY). While that feed is
 * not live (its connection lost), nothing is kept or served from memory. An entry also expires
 * after AUTH_CACHE_TTL_MS, a backstop for a notification that never came.
 *
 * A lookup that was in flight while a change was announced is used for its own request but
 * not kept, so a row read just before a change cannot outlive it in memory. Unknown keys are
 * never kept: each costs its lookup, shared only with the requests that asked for the same key
 * while it was in flight.
 */
import type { ChangeFeed } from "../db/changes.ts";
import type { Clock } from "../lib/clock.ts";
import { AUTH_CACHE_ENTRIES_MAX, AUTH_CACHE_TTL_MS } from "../lib/limits.ts";
import type { ApiKeys } from "./auth.ts";

type Found = Awaited<ReturnType<ApiKeys["findByApiKey"]>>;

interface Entry {
  found: NonNullable<Found>;
  expiresAtMs: number;
}

interface CacheOptions {
  clock: Clock;
  maxEntries?: number;
  ttlMs?: number;
}

/** `apiKeys` with a memory in front of `findByApiKey`; without a feed, `apiKeys` itself. */
export function cachedApiKeys(
  apiKeys: ApiKeys,
  feed: ChangeFeed | undefined,
  options: CacheOptions,
): ApiKeys {
  if (!feed) return apiKeys;
  const maxEntries = options.maxEntries ?? AUTH_CACHE_ENTRIES_MAX;
  const ttlMs = options.ttlMs ?? AUTH_CACHE_TTL_MS;
  const entries = new Map<string, Entry>();
  // Lookups in flight by key: the requests that miss together (the first burst, or every request
  // in flight when an entry expires under load) share one read instead of each sending its own.
  // A request that arrives after a change was announced does not join a lookup begun before it.
  const flights = new Map<string, { generation: number; lookup: Promise<Found> }>();
  // Bumped on every announced change: a lookup that started under an older generation is not kept.
  let generation = 0;
  feed.subscribe(() => {
    generation += 1;
    entries.clear();
  });

  const findByApiKey = async (apiKey: string): Promise<Found> => {
    const nowMs = options.clock.now().getTime();
    const entry = feed.live ? entries.get(apiKey) : undefined;
    if (entry && entry.expiresAtMs > nowMs) {
      // Most recently used last: the first key in the map is the one to drop.
      entries.delete(apiKey);
      entries.set(apiKey, entry);
      return entry.found;
    }
    if (entry) entries.delete(apiKey);
    const flight = flights.get(apiKey);
    if (flight && flight.generation === generation) return flight.lookup;
    const mine = { generation } as { generation: number; lookup: Promise<Found> };
    mine.lookup = (async () => {
      try {
        const found = await apiKeys.findByApiKey(apiKey);
        if (found && feed.live && generation === mine.generation) {
          entries.set(apiKey, { found, expiresAtMs: nowMs + ttlMs });
          if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
        }
        return found;
      } finally {
        if (flights.get(apiKey) === mine) flights.delete(apiKey);
      }
    })();
    flights.set(apiKey, mine);
    return mine.lookup;
  };
  return { ...apiKeys, findByApiKey };
}
