/**
 * The Thai web font the pages ship (Sarabun, from @fontsource/sarabun, SIL Open Font License),
 * served by the service at GET /assets/fonts/{file}. A customer's phone, an operator's laptop
 * and the browser tests then draw the same Thai glyphs whatever fonts the device has, and no
 * page depends on a font CDN.
 *
 * Only the Thai subset is served, in the two weights the pages use (400 for text, 700 for
 * headings and amounts), as WOFF2, which every browser the pages support reads. The
 * `unicode-range` of each face limits it to Thai code points, so Latin text keeps the
 * device's own interface font and a page with no Thai on it downloads nothing.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { FastifyPluginAsync } from "fastify";
import { type StaticAsset, sendAsset, staticAsset } from "./static-assets.ts";

/** The family name the pages' style sheets ask for first, for Thai text. */
export const THAI_FONT_FAMILY = "Satang Sarabun";

/** Thai script, the zero-width (non-)joiners used in Thai line breaking, and the dotted circle. */
const THAI_UNICODE_RANGE = "U+0E01-0E5B, U+200C-200D, U+25CC";

const WEIGHTS = [400, 700] as const;

const require = createRequire(import.meta.url);

function fontFileName(weight: number): string {
  return `sarabun-thai-${weight}-normal.woff2`;
}

/** Every served font file by name, read once at start. */
const FONT_FILES: Map<string, StaticAsset> = new Map(
  WEIGHTS.map((weight) => {
    const name = fontFileName(weight);
    const bytes = readFileSync(require.resolve(`@fontsource/sarabun/files/${name}`));
    return [name, staticAsset(bytes, "font/woff2")];
  }),
);

/**
 * The @font-face rules for the Thai font, with URLs relative to `fontsUrl` (an absolute path
 * such as "/assets/fonts/", or a path relative to the style sheet that holds the rules).
 */
function thaiFontFaces(fontsUrl: string): string {
  return WEIGHTS.map((weight) => {
    const name = fontFileName(weight);
    const version = FONT_FILES.get(name)!.version;
    return (
      `@font-face{font-family:"${THAI_FONT_FAMILY}";font-style:normal;font-weight:${weight};` +
      `font-display:swap;src:url("${fontsUrl}${name}?v=${version}") format("woff2");` +
      `unicode-range:${THAI_UNICODE_RANGE}}`
    );
  }).join("\n");
}

/**
 * The style sheet every page links (before its own): the @font-face rules, with URLs relative
 * to itself, so it works behind a path prefix too.
 */
const FONT_STYLESHEET_NAME = "thai.css";
FONT_FILES.set(FONT_STYLESHEET_NAME, staticAsset(`${thaiFontFaces("")}\n`, "text/css; charset=utf-8"));

/** The URL of the font style sheet under a PUBLIC_BASE_URL path ("" at the root), versioned. */
export function thaiFontStylesheetHref(basePath: string): string {
  return `${basePath}/assets/fonts/${FONT_STYLESHEET_NAME}?v=${FONT_FILES.get(FONT_STYLESHEET_NAME)!.version}`;
}

/**
 * GET /assets/fonts/{file}: the font files and their style sheet, cached for a year (every URL
 * the pages use carries the file's version), with an ETag for a browser that asks again.
 */
export function fontRoutes(): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { file: string } }>(
      "/assets/fonts/:file",
      { schema: { hide: true } },
      async (request, reply) => {
        const asset = FONT_FILES.get(request.params.file);
        if (asset === undefined) return reply.callNotFound();
        reply
          .header("Cache-Control", "public, max-age=31536000, immutable")
          .header("Access-Control-Allow-Origin", "*");
        return sendAsset(request, reply, asset);
      },
    );
  };
}
