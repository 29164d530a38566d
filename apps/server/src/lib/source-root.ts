/**
 * Where the server's own files are: the pages read their assets (HTML, CSS, scripts) from
 * src/ at start. This module runs either from src/lib/ through the TypeScript loader, or bundled
 * into dist/ by scripts/build.mjs (which the test runner uses to start server processes
 * quickly); both resolve to the same src/ folder.
 */
const bundled = !import.meta.url.endsWith(".ts");

/** The server's src/ folder, as a file URL ending in a slash. */
export const SOURCE_ROOT = bundled ? new URL("../src/", import.meta.url) : new URL("../", import.meta.url);

/** A file or folder under src/, named by its path there (`"dashboard/assets/"`). */
export function sourceUrl(path: string): URL {
  return new URL(path, SOURCE_ROOT);
}
