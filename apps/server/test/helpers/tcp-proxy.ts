/**
 * A TCP proxy between the service and PostgreSQL that a test (or the chaos harness) can cut:
 * `stop()` drops every open connection and refuses new ones, as a stopped or unreachable
 * database does; `start()` lets connections through again. The shared PostgreSQL cluster itself
 * is never stopped.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cut = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async open(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("proxy has no port");
    proxy = new TcpProxy(server, address.port);
    return proxy;
  }

  /** A PostgreSQL URL like `url` that goes through this proxy. */
  static urlThrough(url: string, port: number): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(port);
    return parsed.toString();
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  get stopped(): boolean {
    return this.cut;
  }

  /** The database "goes away": open connections drop, new ones are closed at once. */
  stop(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  start(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
    this.stop();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
