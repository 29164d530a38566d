/**
 * Preloaded (`node --import`) into the service the bench starts through its real entrypoint
 * (`satang serve`, bench/lib/servers.ts): counts the statements it sends and times its
 * transactions for the bench (bench/lib/instrument.ts). Nothing else of the service changes.
 */
import { countStatements } from "./lib/instrument.ts";

if (process.send) countStatements();
