/**
 * Changes to the tables that processes cache (merchants and integrations: what authentication
 * reads on every request), heard by every process of a deployment:
 *
 * - on the process that makes a change, at once: a Kysely plugin sees every UPDATE or DELETE
 *   of a watched table as it is sent, and tells the feed's subscribers;
 * - on every process, after the change commits: a statement trigger (migration 0010) sends
 *   `NOTIFY satang_changes, '<table>'`, and each process LISTENs on its store (PostgreSQL: one
 *   dedicated connection, reconnected when lost; PGlite: its own session).
 *
 * A subscriber may keep what it read only while the feed is `live`: while the LISTEN connection
 * is down, a change on another process could go unheard, so caches stand aside until it is
 * back (and forget everything when it comes back, since notifications may have been missed).
 */
import type { PGlite } from "@electric-sql/pglite";
import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";
import type pg from "pg";

/** The channel the change trigger notifies on (migration 0010). */
export const CHANGES_CHANNEL = "satang_changes";

/** The tables whose changes are announced. */
export const WATCHED_TABLES: ReadonlySet<string> = new Set(["merchants", "integrations"]);

/** What a subscriber hears: the table that changed, or "*" for "anything may have changed". */
export type ChangeListener = (table: string) => void;

/** How long to wait before opening a lost LISTEN connection again. */
const RECONNECT_DELAY_MS = 1000;

export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private isLive = false;
  private started = false;
  private stopListening: (() => Promise<void>) | undefined;

  /** `listen` opens the subscription to notifications; called on the first subscriber. */
  constructor(private readonly listen?: (feed: ChangeFeed) => Promise<() => Promise<void>>) {}

  /** True while notifications from every process are known to arrive. */
  get live(): boolean {
    return this.isLive;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (!this.started && this.listen) {
      this.started = true;
      this.listen(this)
        .then((stop) => {
          this.stopListening = stop;
        })
        .catch(() => this.setLive(false));
    }
    return () => this.listeners.delete(listener);
  }

  /** Tells every subscriber that `table` changed. */
  emit(table: string): void {
    for (const listener of this.listeners) listener(table);
  }

  /** Notifications arrive (true) or may be missed (false); either way, forget what was read. */
  setLive(live: boolean): void {
    this.isLive = live;
    this.emit("*");
  }

  async close(): Promise<void> {
    this.isLive = false;
    this.listeners.clear();
    await this.stopListening?.();
  }
}

/** The table names a statement writes to, when it is an UPDATE or DELETE (or raw SQL doing one). */
function writtenTables(node: RootOperationNode | OperationNode): string[] {
  const names: string[] = [];
  const collect = (value: unknown): void => {
    if (!value || typeof value !== "object") return;
    const record = value as Record<string, unknown>;
    if (record.kind === "TableNode") {
      const identifier = (record.table as { identifier?: { name?: string } }).identifier;
      if (identifier?.name) names.push(identifier.name);
      return;
    }
    for (const child of Object.values(record)) {
      if (Array.isArray(child)) child.forEach(collect);
      else collect(child);
    }
  };
  if (node.kind === "UpdateQueryNode") collect((node as unknown as { table?: unknown }).table);
  else if (node.kind === "DeleteQueryNode") collect((node as unknown as { from?: unknown }).from);
  else if (node.kind === "RawNode") {
    const text = (node as unknown as { sqlFragments: readonly string[] }).sqlFragments.join(" ");
    for (const match of text.matchAll(/\b(?:update|delete\s+from|truncate)\s+"?([a-z_]+)"?/gi)) {
      names.push(match[1]!.toLowerCase());
    }
  }
  return names;
}

/** Announces, as they are sent, the statements of this process that change a watched table. */
export class ChangeFeedPlugin implements KyselyPlugin {
  constructor(private readonly feed: ChangeFeed) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    for (const table of writtenTables(args.node)) {
      if (WATCHED_TABLES.has(table)) this.feed.emit(table);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/**
 * LISTEN on PostgreSQL over a connection of its own (`newClient` makes it: to the one host, or
 * to whichever host is the primary now), opened again whenever it is lost.
 */
export function postgresListener(newClient: () => pg.Client) {
  return async (feed: ChangeFeed): Promise<() => Promise<void>> => {
    let closed = false;
    let client: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    const reconnect = () => {
      if (closed || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void connect();
      }, RECONNECT_DELAY_MS);
      timer.unref();
    };
    const connect = async () => {
      const next = newClient();
      client = next;
      next.on("notification", (message) => feed.emit(message.payload ?? "*"));
      next.on("error", () => {
        feed.setLive(false);
        void next.end().catch(() => {});
        reconnect();
      });
      next.on("end", () => {
        if (feed.live) feed.setLive(false);
        reconnect();
      });
      try {
        await next.connect();
        await next.query(`LISTEN ${CHANGES_CHANNEL}`);
        if (closed) await next.end();
        else feed.setLive(true);
      } catch {
        feed.setLive(false);
        void next.end().catch(() => {});
        reconnect();
      }
    };
    await connect();
    return async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => {});
    };
  };
}

/**
 * LISTEN on the embedded store: its one session hears its own notifications. The LISTEN is
 * sent while holding the pool's one connection, so it never lands inside another caller's
 * transaction (where a rollback would undo it).
 */
export function pgliteListener(lite: PGlite, pool: { connect(): Promise<{ release(): void }> }) {
  return async (feed: ChangeFeed): Promise<() => Promise<void>> => {
    const connection = await pool.connect();
    let unlisten: () => Promise<void>;
    try {
      unlisten = await lite.listen(CHANGES_CHANNEL, (payload) => feed.emit(payload || "*"));
    } finally {
      connection.release();
    }
    feed.setLive(true);
    // Usually the session ends with the store, and its LISTEN with it; a database that outlives
    // the store (tests reuse one) stops calling this feed.
    return async () => {
      if (!lite.closed) await unlisten();
    };
  };
}

const feeds = new WeakMap<object, ChangeFeed>();

/** Registers the feed of a store's Kysely instance (db/connect.ts does, when it opens one). */
export function registerChangeFeed(db: object, feed: ChangeFeed): void {
  feeds.set(db, feed);
}

/** The change feed of a store opened by openStore; undefined for any other Kysely instance. */
export function changeFeedOf(db: object): ChangeFeed | undefined {
  return feeds.get(db);
}
