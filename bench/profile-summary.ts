/**
 * Reads a V8 CPU profile (`BENCH_CPU_PROF=dir npm run bench -- --only=r1` leaves one per
 * process) and prints where the samples of one time window went, so a load can be read apart
 * from the setup and the other loads of the same run:
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile>            # busy share per second
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> 16 23 [40] # seconds 16 to 23
 *
 * Without a window it prints the share of non-idle samples for each second of the profile (a
 * load shows as a run of busy seconds). With one it prints the top functions by self time, by
 * inclusive time (a function counted once per sample however deep it recurs) and the self time
 * per file or package. Functions are named by file and line as the profile gives them: the
 * TypeScript loader compiles each file to one line, so a function inside a file shows as line 1
 * and its column names it.
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, fromText, toText, topText] = process.argv.slice(2);
if (!file) {
  console.error("usage: profile-summary.ts <file.cpuprofile> [from_s to_s [top]]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
let clock = profile.startTime;
const seconds = profile.timeDeltas.map((delta) => {
  clock += delta;
  return (clock - profile.startTime) / 1e6;
});
const isIdle = (id: number) => nodes.get(id)?.callFrame.functionName === "(idle)";

if (fromText === undefined) {
  const perSecond = new Map<number, { busy: number; all: number }>();
  profile.samples.forEach((id, i) => {
    const second = Math.floor(seconds[i] ?? 0);
    const entry = perSecond.get(second) ?? { busy: 0, all: 0 };
    entry.all += 1;
    if (!isIdle(id)) entry.busy += 1;
    perSecond.set(second, entry);
  });
  console.log("second:busy% ");
  console.log(
    [...perSecond].map(([second, { busy, all }]) => `${second}:${Math.round((100 * busy) / all)}`).join(" "),
  );
  process.exit(0);
}

const from = Number(fromText);
const to = Number(toText ?? Number.POSITIVE_INFINITY);
const top = Number(topText ?? 40);
const counts = new Map<number, number>();
profile.samples.forEach((id, i) => {
  const at = seconds[i] ?? 0;
  if (at >= from && at < to) counts.set(id, (counts.get(id) ?? 0) + 1);
});
const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
const shortUrl = (url: string) => url.replace(/.*\/(node_modules|src|bench)\//, "$1/");
const nameOf = (frame: CallFrame) =>
  `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`;
const fileOf = (frame: CallFrame) => {
  const inPackage = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (inPackage) return inPackage[1]!;
  return frame.url ? shortUrl(frame.url) : frame.functionName;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const byFile = new Map<string, number>();
const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
for (const [id, n] of counts) {
  const frame = nodes.get(id)!.callFrame;
  add(self, nameOf(frame), n);
  add(byFile, fileOf(frame), n);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const name = nameOf(nodes.get(at)!.callFrame);
    if (seen.has(name)) continue;
    seen.add(name);
    add(inclusive, name, n);
  }
}
const share = (n: number) => `${((100 * n) / Math.max(1, total)).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>) => {
  console.log(`--- ${title}`);
  for (const [name, n] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(share(n), name);
};
console.log(`${total} samples from ${from} s to ${to} s`);
print("self", self);
print("inclusive", inclusive);
print("self by file or package", byFile);
