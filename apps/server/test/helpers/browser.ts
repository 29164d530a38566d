/**
 * Headless Chromium for browser tests, driven by playwright-core. The browser comes from npm:
 * `@sparticuz/chromium` ships a brotli-compressed Chromium with the few shared libraries it
 * needs beyond the C library (NSS, NSPR, expat) and a basic font, so `npm install && npm test`
 * runs these tests on a machine that has nothing but Node.js. It is unpacked once per version
 * into node_modules/.cache/satang-chromium (about 3 s), and every later run reuses it.
 *
 * CHROMIUM_PATH names another browser (Debian's /usr/bin/chromium, say) to use instead. A
 * browser that cannot be found or unpacked fails the test run with the reason; browser tests
 * are never skipped.
 *
 * Thai text is drawn in the font the pages ship themselves (/assets/fonts/thai.css), so the
 * screenshots show Thai whether or not the machine has a Thai font.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";

declare const document: any;

/** A browser named by the environment; unset means the one from npm. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || undefined;

/**
 * The flags this machine's Chromium needs: no sandbox as root, no GPU, and none of the
 * background connections to Google that a closed network refuses at every start. Playwright's
 * launch() adds a fresh, temporary --user-data-dir of its own, so no state carries over.
 */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A phone of today (390x844 CSS pixels, as an iPhone 14), the size the pages are tried at. */
export const MOBILE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

/** Where screenshots go, for a person to look at after the run. */
export const RESULTS_DIR = fileURLToPath(new URL("../../test-results/", import.meta.url));

const require = createRequire(import.meta.url);

/** What the npm package ships, as tar archives or the bare binary, each compressed with brotli. */
interface PackedChromium {
  version: string;
  binDir: string;
}

function packedChromium(): PackedChromium {
  // The package exports no package.json: find its folder from its entry point.
  // (its build folders hold package.json files of their own, without a name).
  const manifestAt = (dir: string) => {
    const file = join(dir, "package.json");
    if (!existsSync(file)) return undefined;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
    return manifest.name === "@sparticuz/chromium" ? manifest.version : undefined;
  };
  let root = dirname(require.resolve("@sparticuz/chromium"));
  let version = manifestAt(root);
  while (version === undefined) {
    if (dirname(root) === root) throw new Error("@sparticuz/chromium's package.json not found");
    root = dirname(root);
    version = manifestAt(root);
  }
  return { version, binDir: join(root, "bin") };
}

/**
 * Unpacks a tar archive (ustar, as the package's are: plain files and folders) into `into`.
 * Written here because the package's own unpacker writes to a fixed folder under /tmp, which two
 * test files unpacking at once would race on.
 */
function untar(archive: Buffer, into: string): void {
  let offset = 0;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    const rawName = header.subarray(0, 100).toString("utf8").replace(/\0.*$/s, "");
    if (rawName === "") break;
    const prefix = header.subarray(345, 500).toString("utf8").replace(/\0.*$/s, "");
    const name = prefix ? `${prefix}/${rawName}` : rawName;
    const size = Number.parseInt(
      header.subarray(124, 136).toString("utf8").replace(/\0.*$/s, "").trim() || "0",
      8,
    );
    const type = String.fromCharCode(header[156] ?? 0);
    const mode = Number.parseInt(
      header.subarray(100, 108).toString("utf8").replace(/\0.*$/s, "").trim() || "644",
      8,
    );
    offset += 512;
    if (name.includes("..")) throw new Error(`refusing a tar entry outside its folder: ${name}`);
    const target = join(into, name);
    if (type === "5") mkdirSync(target, { recursive: true });
    else if (type === "0" || type === "\0") {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, archive.subarray(offset, offset + size), { mode: mode & 0o755 });
    }
    offset += Math.ceil(size / 512) * 512;
  }
}

/** A fontconfig file that finds the unpacked fonts and keeps its cache beside them. */
function fontConfig(dir: string): string {
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${join(dir, "fonts")}</dir>
  <cachedir>${join(dir, "fonts-cache")}</cachedir>
</fontconfig>
`;
}

/**
 * The unpacked browser's folder: chromium, lib/ (its shared libraries), fonts/ and the
 * software GL libraries. Each test process may call this; the folder is built under a
 * temporary name and renamed into place, so a reader never sees half of it.
 */
function unpackChromium(): string {
  const packed = packedChromium();
  const cache = fileURLToPath(new URL("../../../../node_modules/.cache/satang-chromium/", import.meta.url));
  const dir = join(cache, packed.version);
  if (existsSync(join(dir, "chromium"))) return dir;
  const building = `${dir}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const inflate = (name: string) => brotliDecompressSync(readFileSync(join(packed.binDir, name)));
  for (const archive of ["al2023.tar.br", "fonts.tar.br", "swiftshader.tar.br"]) {
    untar(inflate(archive), building);
  }
  writeFileSync(join(building, "fonts.conf"), fontConfig(dir));
  writeFileSync(join(building, "chromium"), inflate("chromium.br"), { mode: 0o755 });
  try {
    renameSync(building, dir);
  } catch (error) {
    // Another test process put its copy in place first: use that one.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(dir, "chromium"))) throw error;
  }
  return dir;
}

interface BrowserInstall {
  executablePath: string;
  env: Record<string, string>;
}

function browserInstall(purpose: string): BrowserInstall {
  if (CHROMIUM_PATH !== undefined) {
    if (!existsSync(CHROMIUM_PATH)) {
      throw new Error(
        `Chromium not found at CHROMIUM_PATH=${CHROMIUM_PATH}: ${purpose} needs a real browser. ` +
          "Unset CHROMIUM_PATH to use the one that npm installs (@sparticuz/chromium).",
      );
    }
    return { executablePath: CHROMIUM_PATH, env: {} };
  }
  let dir: string;
  try {
    dir = unpackChromium();
  } catch (error) {
    throw new Error(
      `Could not unpack the Chromium from @sparticuz/chromium (${(error as Error).message}): ` +
        `${purpose} needs a real browser. Run npm install, or set CHROMIUM_PATH to a Chromium.`,
    );
  }
  const inherited = process.env.LD_LIBRARY_PATH;
  return {
    executablePath: join(dir, "chromium"),
    env: {
      LD_LIBRARY_PATH: inherited ? `${join(dir, "lib")}:${inherited}` : join(dir, "lib"),
      FONTCONFIG_PATH: dir,
      FONTCONFIG_FILE: join(dir, "fonts.conf"),
    },
  };
}

export async function launchChromium(purpose: string): Promise<Browser> {
  const install = browserInstall(purpose);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return chromium.launch({
    executablePath: install.executablePath,
    headless: true,
    args: CHROMIUM_FLAGS,
    env: { ...env, ...install.env },
  });
}

/**
 * Waits until the dashboard's view on screen is the one for `hash`: the dashboard marks `main`
 * with the hash of the view it drew (render.js), once that view is drawn.
 */
export async function viewShown(page: Page, hash: string): Promise<void> {
  await page.waitForFunction((expected) => document.querySelector("main")?.dataset.hash === expected, hash);
}

/**
 * What a page's request is answered with when a test stands in for a refusal of the server: the
 * error envelope with `status`, and `Retry-After` when given (for `route.fulfill`).
 */
export function refusedAnswer(
  status: number,
  error: { code: string; message: string; metadata?: Record<string, unknown> },
  retryAfter?: number,
): { status: number; headers: Record<string, string>; body: string } {
  return {
    status,
    headers: {
      "content-type": "application/json",
      ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
    },
    body: JSON.stringify({ success: false, error }),
  };
}
