/**
 * Headless Chromium for browser tests: Debian's `chromium` package driven by playwright-core.
 * A missing browser fails the test run with a message saying how to install it; browser tests
 * are never skipped. CHROMIUM_PATH overrides the default /usr/bin/chromium.
 */
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContextOptions, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

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

export async function launchChromium(purpose: string): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: ${purpose} needs a real browser. ` +
        "Install Debian's package (apt-get update && apt-get install -y chromium) or set CHROMIUM_PATH.",
    );
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}
