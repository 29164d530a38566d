/**
 * BENCH_SERVE_PROCESSES=N (N > 1): the service as N `satang serve` processes on one port, as a
 * deployment runs several of them behind one address. Each is the real entrypoint (the built
 * bundle, `serve`, the start script's flags, every default); node's cluster module shares the
 * listening socket between them, as a load balancer would share the connections. This parent
 * serves nothing: it forks them, answers the bench's questions (bench/lib/instrument.ts) with
 * the sum of theirs, and stops them when it is stopped.
 *
 *   node <flags> --import tsx --import bench/dist/instrument-preload.mjs bench/serve-processes.ts <bundle> <N>
 */
import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";

const [bundle, countText] = process.argv.slice(2);
const count = Number(countText);
if (!bundle || !Number.isInteger(count) || count < 1) {
  console.error("usage: serve-processes.ts <bundle> <processes>");
  process.exit(2);
}

cluster.setupPrimary({ exec: bundle, args: ["serve"] });
// The children count their own statements (the preload skips this parent by this variable).
const workers: Worker[] = Array.from({ length: count }, () => cluster.fork({ BENCH_SERVE_CLUSTER: "" }));
for (const worker of workers) {
  worker.on("exit", (code) => {
    if (!stopping) {
      console.error(`satang serve (cluster child ${worker.process.pid}) exited with code ${code}`);
      process.exit(1);
    }
  });
}

type Answer = { statements?: number; txTimes?: number[]; texts?: [string, number][] };

/** Asks every child `question` and merges their answers into one. */
async function askAll(question: string): Promise<Answer> {
  const answers = (await Promise.all(
    workers.map((worker) => {
      const answer = once(worker, "message");
      worker.send(question);
      return answer.then(([message]) => message as Answer);
    }),
  )) as Answer[];
  if (question === "statements") return { statements: answers.reduce((n, a) => n + (a.statements ?? 0), 0) };
  if (question === "tx-times") return { txTimes: answers.flatMap((a) => a.txTimes ?? []) };
  const texts = new Map<string, number>();
  for (const a of answers) for (const [text, n] of a.texts ?? []) texts.set(text, (texts.get(text) ?? 0) + n);
  return { texts: [...texts].sort((a, b) => b[1] - a[1]) };
}

process.on("message", (question) => {
  if (question === "statements" || question === "tx-times" || question === "statement-texts") {
    askAll(question).then((answer) => process.send?.(answer));
  }
});

let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
  for (const worker of workers) worker.process.kill("SIGTERM");
  Promise.all(workers.map((worker) => (worker.isDead() ? undefined : once(worker, "exit")))).then(() =>
    process.exit(0),
  );
});
