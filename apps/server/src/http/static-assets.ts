/**
 * Files that a page of the service serves from its own folder (scripts, style sheets, icons):
 * read once at start, each with its content type and a content hash. The hash is the file's
 * ETag and the version written into the URLs that load it, so a new release is a new URL and
 * an unchanged file is answered with 304.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { FastifyReply, FastifyRequest } from "fastify";

export interface StaticAsset {
  /** Text (scripts, style sheets) or bytes (fonts). */
  body: string | Buffer;
  type: string;
  /** The first 16 hex digits of the SHA-256 of the body. */
  version: string;
}

/** The content types of the files a page may serve; any other file in the folder is not served. */
const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

function contentTypeOf(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? undefined : CONTENT_TYPES[name.slice(dot)];
}

/** A file's text or bytes as an asset, or text built at start (a generated module, say). */
export function staticAsset(body: string | Buffer, type: string): StaticAsset {
  return { body, type, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

/**
 * Every servable file under `folder` (a URL ending in "/"; sub-folders included), by its path
 * relative to the folder with "/" separators: "app.js", "views/payments.js". Type declarations, configuration
 * and anything else without a content type above stay private.
 */
export function readAssetFolder(folder: URL): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  const walk = (prefix: string) => {
    const entries = readdirSync(new URL(prefix || ".", folder), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const name = `${prefix}${entry.name}`;
      if (entry.isDirectory()) walk(`${name}/`);
      const type = contentTypeOf(entry.name);
      if (entry.isFile() && type !== undefined) {
        assets.set(name, staticAsset(readFileSync(new URL(name, folder), "utf8"), type));
      }
    }
  };
  walk("");
  return assets;
}

/**
 * Answers with the asset and its ETag, or with 304 when the browser already holds this version
 * (If-None-Match). The caller sets Cache-Control, which differs between pages.
 */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: StaticAsset): FastifyReply {
  const etag = `"${asset.version}"`;
  reply.header("ETag", etag).header("X-Content-Type-Options", "nosniff");
  if (request.headers["if-none-match"] === etag) return reply.code(304).send();
  return reply.type(asset.type).send(asset.body);
}
