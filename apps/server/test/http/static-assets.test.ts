/**
 * The files a page serves from its own folder: which files are served, their versions, and
 * the answers to a browser that already holds a version.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import { readAssetFolder, sendAsset, staticAsset } from "../../src/http/static-assets.ts";

const dir = mkdtempSync(join(tmpdir(), "satang-assets-"));

after(() => rmSync(dir, { recursive: true, force: true }));

describe("static assets", () => {
  it("serves scripts, style sheets and icons of every sub-folder, and nothing else", () => {
    mkdirSync(join(dir, "views"));
    for (const name of [
      "app.js",
      "app.css",
      "icon.svg",
      "views/list.js",
      "types.d.ts",
      "tsconfig.json",
      "notes.md",
    ]) {
      writeFileSync(join(dir, name), `/* ${name} */`);
    }
    const assets = readAssetFolder(pathToFileURL(`${dir}/`));
    assert.deepEqual([...assets.keys()], ["app.css", "app.js", "icon.svg", "views/list.js"]);
    assert.equal(assets.get("views/list.js")?.body, "/* views/list.js */");
    assert.equal(assets.get("app.js")?.type, "text/javascript; charset=utf-8");
    assert.equal(assets.get("app.css")?.type, "text/css; charset=utf-8");
    assert.equal(assets.get("icon.svg")?.type, "image/svg+xml");
  });

  it("versions a file by its content: the same text the same version, another text another", () => {
    const version = staticAsset("export {};", "text/javascript").version;
    assert.match(version, /^[0-9a-f]{16}$/);
    assert.equal(staticAsset("export {};", "text/css").version, version);
    assert.notEqual(staticAsset("export { };", "text/javascript").version, version);
  });

  it("answers with the file and its version as ETag, and 304 to a browser holding that version", async () => {
    const asset = staticAsset("export const a = 1;\n", "text/javascript; charset=utf-8");
    const app = Fastify();
    app.get("/a.js", async (request, reply) => sendAsset(request, reply, asset));
    try {
      const first = await app.inject({ method: "GET", url: "/a.js" });
      assert.equal(first.statusCode, 200);
      assert.equal(first.body, asset.body);
      assert.equal(first.headers["content-type"], asset.type);
      assert.equal(first.headers["x-content-type-options"], "nosniff");
      assert.equal(first.headers.etag, `"${asset.version}"`);
      const same = await app.inject({
        method: "GET",
        url: "/a.js",
        headers: { "if-none-match": `"${asset.version}"` },
      });
      assert.equal(same.statusCode, 304);
      assert.equal(same.body, "");
      const stale = await app.inject({
        method: "GET",
        url: "/a.js",
        headers: { "if-none-match": '"0000000000000000"' },
      });
      assert.equal(stale.statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
