/**
 * Several real server processes on one PostgreSQL database, for tests of rules that must hold
 * across processes (CONTRACT 1). Each process is app-process.ts: buildApp over its own
 * connection pool, listening on a random port. Requests go over HTTP, signed like a merchant's.
 */
import { type ChildProcess, fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { signRequest } from "@satang/sdk";
import type { Credentials, TestResponse } from "./harness.ts";

// The compiled server process when the test runner built one (SATANG_BUNDLE, scripts/build.mjs),
// else app-process.ts through the TypeScript loader.
const BUNDLE = process.env.SATANG_BUNDLE;
const CHILD = BUNDLE
  ? join(dirname(BUNDLE), "app-process.mjs")
  : fileURLToPath(new URL("./app-process.ts", import.meta.url));

export interface Cluster {
  urls: string[];
  close(): Promise<void>;
}

function startOne(databaseUrl: string, clockMs: number): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [], {
      execArgv: BUNDLE ? [] : ["--import", "tsx"],
      env: {
        ...process.env,
        SATANG_CHILD_DATABASE_URL: databaseUrl,
        SATANG_CHILD_CLOCK_MS: String(clockMs),
      },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const onExit = (code: number | null) =>
      reject(new Error(`server process exited early with code ${code}`));
    child.once("exit", onExit);
    child.once("error", reject);
    child.once("message", (message: { port?: number }) => {
      child.off("exit", onExit);
      if (typeof message?.port !== "number") {
        reject(new Error(`unexpected message from server process: ${JSON.stringify(message)}`));
        return;
      }
      resolve({ child, url: `http://127.0.0.1:${message.port}` });
    });
  });
}

/** Starts `processes` servers on `databaseUrl`, all with the business clock fixed at `clockMs`. */
export async function startCluster(databaseUrl: string, clockMs: number, processes = 2): Promise<Cluster> {
  const started = await Promise.all(Array.from({ length: processes }, () => startOne(databaseUrl, clockMs)));
  return {
    urls: started.map((s) => s.url),
    close: async () => {
      await Promise.all(
        started.map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once("exit", () => resolve());
              child.send("stop");
            }),
        ),
      );
    },
  };
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: TestResponse["body"];
}

/** Sends one signed request; each call gets its own timestamp (the SDK's nextTimestamp). */
export async function signedFetch(
  baseUrl: string,
  credentials: Credentials,
  method: string,
  path: string,
  body?: unknown,
  version?: "v1" | "v2",
): Promise<HttpResponse> {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...signRequest({
      apiKey: credentials.apiKey,
      apiSecret: credentials.apiSecret,
      body: payload,
      method,
      path,
      ...(version ? { version } : {}),
    }),
    ...(payload === "" ? {} : { "content-type": "application/json" }),
  };
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(payload === "" ? {} : { body: payload }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
