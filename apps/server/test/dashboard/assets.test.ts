/**
 * The dashboard's front end as files: its texts are complete in English and Thai, its lists
 * come from the server (GET /dashboard/api/constants serves exactly the lists the API validates
 * with), every module is served and preloaded, none of them writes HTML, and the type check of
 * the modules passes and catches a mistake in a view.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { AUDITED_ROUTES } from "../../src/audit/routes.ts";
import { WALLET_STATUSES } from "../../src/balance/schemas.ts";
import {
  DESTINATION_TYPES,
  EVENT_TYPES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  REFUND_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
  WITHDRAW_STATUSES,
} from "../../src/db/types.ts";
import { BANKS } from "../../src/lib/bank-codes.ts";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../../src/lib/limits.ts";
import { PAYMENT_SORT_FIELDS } from "../../src/payments/schemas.ts";
import { REFUND_SORT_FIELDS } from "../../src/refunds/schemas.ts";
import { WITHDRAW_SORT_FIELDS } from "../../src/withdraws/schemas.ts";
import { startService, type TestService } from "../helpers/harness.ts";

const ASSETS_DIR = fileURLToPath(new URL("../../src/dashboard/assets/", import.meta.url));
const BROWSER_TSCONFIG = fileURLToPath(new URL("../../tsconfig.browser.json", import.meta.url));

// i18n.js is a browser module, outside the server's type check: it is loaded as a plain module.
const i18n = (await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href)) as {
  LANGS: string[];
  MESSAGES: Record<string, Record<string, string>>;
};
const en = i18n.MESSAGES.en!;
const th = i18n.MESSAGES.th!;

/** Every JavaScript module of the dashboard, by path relative to assets/. */
function modules(dir = ASSETS_DIR, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return modules(join(dir, entry.name), `${prefix}${entry.name}/`);
    return entry.name.endsWith(".js") ? [`${prefix}${entry.name}`] : [];
  });
}

/** The relative modules a module imports (static imports and re-exports; not JSDoc types). */
function importsOf(source: string): string[] {
  return [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)";/gms)].map(
    (match) => match[1]!,
  );
}

/**
 * The type check of the browser modules (tsconfig.browser.json, as `npm run typecheck` runs
 * it), with some files' text replaced. Returns the errors as "file: message".
 */
function browserTypeErrors(replaced: Record<string, string> = {}): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    BROWSER_TSCONFIG,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  assert.ok(config && config.errors.length === 0, "tsconfig.browser.json is valid");
  const texts = new Map(Object.entries(replaced).map(([name, text]) => [resolve(ASSETS_DIR, name), text]));
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => texts.get(resolve(name)) ?? readFile(name);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    return `${diagnostic.file?.fileName.slice(ASSETS_DIR.length) ?? ""}: ${message}`;
  });
}

let svc: TestService;

before(async () => {
  svc = await startService();
});

after(async () => {
  await svc?.close();
});

describe("dashboard texts", () => {
  it("has English and Thai with the same keys, none empty, and the same {placeholders}", () => {
    assert.deepEqual(i18n.LANGS, ["en", "th"]);
    assert.deepEqual(Object.keys(th).sort(), Object.keys(en).sort());
    for (const key of Object.keys(en)) {
      assert.ok(en[key]!.trim() !== "" && th[key]!.trim() !== "", key);
      const holes = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
      assert.deepEqual(holes(th[key]!), holes(en[key]!), key);
    }
  });

  it("Thai texts are in Thai, apart from the brand, the word URL and the empty-value dash", () => {
    const same = Object.keys(en).filter((key) => en[key] === th[key]);
    assert.deepEqual(same.sort(), ["brand", "colUrl", "none"]);
  });

  it("names a refund's success one way: its status and the event that reaches it", () => {
    for (const messages of [en, th]) {
      assert.equal(messages["event.refund.succeeded"], messages["refundStatus.succeeded"]);
    }
  });

  it("has a text for every value of the server's lists that the dashboard shows", () => {
    const composed: Array<[string, readonly string[]]> = [
      ["paymentStatus", PAYMENT_STATUSES],
      ["withdrawStatus", WITHDRAW_STATUSES],
      ["method", PAYMENT_METHODS],
      ["destination", DESTINATION_TYPES],
      ["event", EVENT_TYPES],
      ["deliveryStatus", WEBHOOK_DELIVERY_STATUSES],
      ["sort", [...PAYMENT_SORT_FIELDS, ...WITHDRAW_SORT_FIELDS]],
      ["", ["sandbox", "live"]],
      // The audit log's actions, in words (the operator's log and its filter keep the names).
      ["auditAction", Object.values(AUDITED_ROUTES).map((route) => route.action)],
    ];
    for (const [prefix, values] of composed) {
      for (const value of values) {
        const key = prefix ? `${prefix}.${value}` : value;
        assert.ok(key in en, `missing message ${key}`);
      }
    }
  });
});

describe("the server's lists for the dashboard", () => {
  it("GET /dashboard/api/constants answers, without a session, exactly the lists the API validates with", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/dashboard/api/constants" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    const body = res.json();
    assert.equal(body.success, true);
    assert.deepEqual(body.data, {
      paymentStatuses: [...PAYMENT_STATUSES],
      paymentMethods: [...PAYMENT_METHODS],
      paymentSortFields: [...PAYMENT_SORT_FIELDS],
      withdrawStatuses: [...WITHDRAW_STATUSES],
      destinationTypes: [...DESTINATION_TYPES],
      withdrawSortFields: [...WITHDRAW_SORT_FIELDS],
      refundStatuses: [...REFUND_STATUSES],
      refundSortFields: [...REFUND_SORT_FIELDS],
      eventTypes: [...EVENT_TYPES],
      webhookDeliveryStatuses: [...WEBHOOK_DELIVERY_STATUSES],
      walletStatuses: [...WALLET_STATUSES],
      pageSizeDefault: PAGE_SIZE_DEFAULT,
      pageSizeMax: PAGE_SIZE_MAX,
      banks: BANKS.map(({ code, shortName, name, nameTh }) => ({ code, shortName, name, nameTh })),
    });
  });

  it("is revalidated by its ETag: 304 while unchanged", async () => {
    const first = await svc.app.inject({ method: "GET", url: "/dashboard/api/constants" });
    assert.equal(first.headers["cache-control"], "no-cache");
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const again = await svc.app.inject({
      method: "GET",
      url: "/dashboard/api/constants",
      headers: { "if-none-match": etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, "");
  });
});

describe("dashboard modules", () => {
  it("the shell loads one module, and preloads every module it imports, from the service itself", async () => {
    const shell = await svc.app.inject({ method: "GET", url: "/dashboard" });
    assert.equal(shell.body.match(/<script\b/g)?.length, 1, "one script element");
    const entry = /<script type="module" src="(\/dashboard\/assets\/app\.js)\?v=([0-9a-f]{16})">/.exec(
      shell.body,
    );
    assert.ok(entry, "one module entry point, versioned by its content hash");
    const preloaded = new Set(
      [...shell.body.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((match) => match[1]!),
    );

    // Follow the imports from the entry: each module is served, typed as JavaScript, versioned
    // by its ETag, and announced in the shell.
    const seen = new Set<string>();
    const queue = [entry[1]!];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await svc.app.inject({ method: "GET", url: path });
      assert.equal(res.statusCode, 200, path);
      assert.match(String(res.headers["content-type"]), /^text\/javascript/, path);
      assert.match(String(res.headers.etag), /^"[0-9a-f]{16}"$/, path);
      assert.equal(res.headers["cache-control"], "no-cache", path);
      if (path !== entry[1]) assert.ok(preloaded.has(path), `${path} is preloaded`);
      for (const spec of importsOf(res.body)) queue.push(new URL(spec, `http://x${path}`).pathname);
    }
    const entryFile = await svc.app.inject({ method: "GET", url: entry[1]! });
    assert.equal(entryFile.headers.etag, `"${entry[2]}"`, "the entry's version is its ETag");
    // Every module of the folder is part of the page, apart from the type definitions.
    const expected = modules()
      .filter((name) => name !== "types.js")
      .map((name) => `/dashboard/assets/${name}`);
    assert.deepEqual([...seen].sort(), expected.sort());
  });

  it("answers 404 for anything but its own files", async () => {
    for (const name of [
      "..%2Fpage-routes.ts",
      "../page-routes.ts",
      "secret.key",
      "views/",
      "views/nothing.js",
    ]) {
      const res = await svc.app.inject({ method: "GET", url: `/dashboard/assets/${name}` });
      assert.equal(res.statusCode, 404, name);
    }
  });

  it("every module is type-checked (// @ts-check) and never writes HTML from data", () => {
    const files = modules();
    assert.ok(files.length > 15, `found ${files.length} modules`);
    for (const name of files) {
      const source = readFileSync(join(ASSETS_DIR, name), "utf8");
      assert.match(source, /^\/\/ @ts-check\n/, `${name} starts with // @ts-check`);
      assert.doesNotMatch(
        source,
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
        name,
      );
    }
  });

  it("is type-checked strictly: a view that misreads a record or names a missing text fails the check", () => {
    // Exactly the two mistakes made here are reported, so the modules as they are pass it.
    const view = readFileSync(join(ASSETS_DIR, "views/payment-detail.js"), "utf8");
    assert.ok(view.includes("payment.referenceId") && view.includes('t("fieldReference")'));
    const errors = browserTypeErrors({
      "views/payment-detail.js": view
        .replace("payment.referenceId", "payment.referenceNumber")
        .replace('t("fieldReference")', 't("fieldReferenceNumber")'),
    });
    assert.equal(errors.length, 2, errors.join("\n"));
    assert.match(
      errors[0]!,
      /^views\/payment-detail\.js: Property 'referenceNumber' does not exist on type 'Payment'/,
    );
    assert.match(errors[1]!, /^views\/payment-detail\.js: Argument of type '"fieldReferenceNumber"'/);
  });
});
