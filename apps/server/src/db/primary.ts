/**
 * Following the primary of a PostgreSQL pair (a synchronous standby under an automatic failover
 * engine, docs/DEPLOYMENT.md): a multi-host DATABASE_URL in libpq's form,
 *
 *   postgres://user@db1:5432,db2:5432/satang?target_session_attrs=read-write
 *
 * names every node. pg itself connects to one host only, so the service finds the primary
 * itself, as libpq does: it tries the hosts in order and keeps the first one that takes writes,
 * `pg_is_in_recovery()` false and its sessions not read-only (`transaction_read_only` off, as
 * libpq's read-write asks: a primary that pg_auto_failover is draining before a failover turns
 * `default_transaction_read_only` on). The host found is remembered; every new connection goes there
 * and checks again that it reached a primary, and a connection that fails, is lost, finds a
 * standby (a failover demoted the old primary), or has a write refused as read-only later
 * forgets it, so the next connection looks again.
 * While no host is a primary (during the switch) a connection fails with NoPrimaryError, which
 * the routes answer with 503 and Retry-After (db/faults.ts).
 *
 * A URL with one host never comes here: it is used exactly as pg reads it.
 */
import pg from "pg";
import { NoPrimaryError } from "./faults.ts";

export interface DatabaseHost {
  host: string;
  port: number;
}

/** `target_session_attrs`: a primary (read-write, the default with several hosts) or any host. */
export type SessionTarget = "read-write" | "any";

export interface MultiHostUrl {
  hosts: DatabaseHost[];
  target: SessionTarget;
  /** The connection string for one of the hosts: the same user, database and parameters. */
  urlFor(host: DatabaseHost): string;
}

const URL_SHAPE = /^(postgres(?:ql)?:)\/\/(?:([^@/?#]*)@)?([^/?#]*)(.*)$/;
const TARGETS: Record<string, SessionTarget> = {
  "read-write": "read-write",
  primary: "read-write",
  any: "any",
};

function parseHost(text: string): DatabaseHost {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : (text.split(":") as [string, string?]);
  if (!host || (port !== undefined && !/^\d{1,5}$/.test(port))) {
    throw new Error(`"${text}" is not a host or host:port`);
  }
  return { host, port: port === undefined ? 5432 : Number(port) };
}

function hostText(host: DatabaseHost): string {
  return `${host.host.includes(":") ? `[${host.host}]` : host.host}:${host.port}`;
}

/**
 * The hosts of a libpq-style URL with several (`h1:p1,h2:p2`); undefined when it names one
 * host (or is not such a URL at all: pg and the config check read it as before). Throws when
 * a host or `target_session_attrs` is malformed.
 */
export function parseMultiHostUrl(url: string): MultiHostUrl | undefined {
  const shape = URL_SHAPE.exec(url);
  if (!shape?.[3]?.includes(",")) return undefined;
  const [, protocol, userinfo, hostList, rest] = shape as unknown as [
    string,
    string,
    string | undefined,
    string,
    string,
  ];
  const hosts = hostList.split(",").map(parseHost);
  const [path, query = ""] = rest.split("?", 2) as [string, string?];
  const params = new URLSearchParams(query);
  const attrs = params.get("target_session_attrs") ?? "read-write";
  const target = TARGETS[attrs];
  if (!target) throw new Error(`target_session_attrs must be read-write, primary or any, got "${attrs}"`);
  params.delete("target_session_attrs");
  const tail = params.size > 0 ? `?${params.toString()}` : "";
  const auth = userinfo === undefined ? "" : `${userinfo}@`;
  return {
    hosts,
    target,
    urlFor: (host) => `${protocol}//${auth}${hostText(host)}${path}${tail}`,
  };
}

/** How long after a search that found no primary the next one starts (no storm of probes). */
const SEARCH_SPACING_MS = 250;

/** Finds and remembers the primary among the hosts of a multi-host URL. */
export class PrimaryLocator {
  private known: DatabaseHost | undefined;
  private search: Promise<DatabaseHost> | undefined;
  private lastMiss: { at: number; error: NoPrimaryError } | undefined;
  /** Searches run so far (tests and /metrics-style figures). */
  searches = 0;

  constructor(
    readonly url: MultiHostUrl,
    private readonly connectTimeoutMs: number,
  ) {}

  /** The host remembered as the primary, or the one a search finds now. */
  async primary(): Promise<DatabaseHost> {
    if (this.known) return this.known;
    if (this.lastMiss && Date.now() - this.lastMiss.at < SEARCH_SPACING_MS) throw this.lastMiss.error;
    this.search ??= this.find().finally(() => {
      this.search = undefined;
    });
    return this.search;
  }

  /** The remembered primary, if any (no search). */
  get current(): DatabaseHost | undefined {
    return this.known;
  }

  /** `host` failed or is no longer the primary: the next connection searches again. */
  forget(host: DatabaseHost): void {
    if (this.known && this.known.host === host.host && this.known.port === host.port) this.known = undefined;
  }

  /** Whether a session on `client` is what target_session_attrs asks for. */
  async acceptable(client: pg.ClientBase): Promise<boolean> {
    if (this.url.target === "any") return true;
    const result = await client.query<{ writable: boolean }>(
      "select not pg_is_in_recovery() and current_setting('transaction_read_only') = 'off' as writable",
    );
    return result.rows[0]?.writable === true;
  }

  private async find(): Promise<DatabaseHost> {
    this.searches += 1;
    const reasons: string[] = [];
    for (const host of this.url.hosts) {
      const client = new pg.Client({
        connectionString: this.url.urlFor(host),
        connectionTimeoutMillis: this.connectTimeoutMs,
      });
      client.on("error", () => {});
      try {
        await client.connect();
        if (await this.acceptable(client)) {
          this.known = host;
          this.lastMiss = undefined;
          return host;
        }
        reasons.push(`${hostText(host)} is a standby`);
      } catch (error) {
        reasons.push(`${hostText(host)}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        client.end().catch(() => {});
      }
    }
    const error = new NoPrimaryError(reasons);
    this.lastMiss = { at: Date.now(), error };
    throw error;
  }
}

type ConnectCallback = (error: Error | null, client?: pg.Client) => void;

/**
 * A pg Client class that connects to the primary `locator` finds: given to pg.Pool as its
 * `Client`, and used for the LISTEN connection and the readiness probe.
 */
export function primaryClientClass(locator: PrimaryLocator): typeof pg.Client {
  class PrimaryClient extends pg.Client {
    private target: DatabaseHost | undefined;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection lost (the primary killed, a network cut) may mean a failover: look again.
      this.on("error", () => {
        if (this.target) locator.forget(this.target);
      });
    }

    /**
     * A write on this connection was refused as read-only (db/pg-driver.ts closes it): the host
     * is a standby now, or being drained, so the next connection searches again.
     */
    readOnlyNodeSeen(): void {
      if (this.target) locator.forget(this.target);
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | undefined {
      const done = this.connectToPrimary().then(() => this as pg.Client);
      if (!callback) return done;
      done.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
      return undefined;
    }

    private async connectToPrimary(): Promise<void> {
      const target = await locator.primary();
      // pg.Pool gives up on a connection that took longer than its connectionTimeoutMillis by
      // destroying its socket: a search that outlived that bound must not connect after all.
      const stream = (this as unknown as { connection?: { stream?: { destroyed?: boolean } } }).connection
        ?.stream;
      if (stream?.destroyed) throw new Error("Connection terminated due to connection timeout");
      this.target = target;
      const self = this as unknown as { host: string; port: number };
      self.host = target.host;
      self.port = target.port;
      try {
        await super.connect();
      } catch (error) {
        locator.forget(target);
        throw error;
      }
      let acceptable: boolean;
      try {
        acceptable = await locator.acceptable(this as pg.Client);
      } catch (error) {
        locator.forget(target);
        await this.end().catch(() => {});
        throw error;
      }
      if (!acceptable) {
        locator.forget(target);
        await this.end().catch(() => {});
        throw new NoPrimaryError([`${hostText(target)} is a standby now`]);
      }
    }
  }
  return PrimaryClient as unknown as typeof pg.Client;
}
