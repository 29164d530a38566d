import { test } from "node:test";
import { openTestStore } from "./helpers/store.ts";
import { buildApp } from "../src/app.ts";
import { buildDeps } from "../src/deps.ts";
import { loadConfig } from "../src/config.ts";
import { ManualClock } from "../src/lib/clock.ts";
import { SecretBox } from "../src/lib/crypto.ts";
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
test("prof", async () => {
  for (let i = 0; i < 4; i++) {
    let c = cpu();
    const store = await openTestStore();
    const a = cpu() - c; c = cpu();
    const deps = buildDeps({ config: loadConfig({ ADMIN_TOKEN: "x".repeat(40), PUBLIC_BASE_URL: "http://pay.test" }), db: store.db, storeKind: store.kind, clock: new ManualClock(Date.now()), secrets: new SecretBox(Buffer.alloc(32, 7)), databaseReachable: (t) => store.reachable(t) });
    const app = await buildApp(deps);
    const b = cpu() - c; c = cpu();
    await app.ready();
    const r = cpu() - c; c = cpu();
    await app.close(); await store.close();
    console.log(`store ${a|0} build ${b|0} ready ${r|0} close ${(cpu()-c)|0}`);
  }
});
