/**
 * scripts/build.mjs: the compiled command is replaced atomically. `npm start` builds before it
 * serves, and a process started from the same checkout meanwhile (a second `npm start`, a CLI
 * command, the test suite's processes) must read the old entry or the new one, never a
 * half-written one: an entry truncated to nothing runs as an empty module and exits 0 silently.
 */
import assert from "node:assert/strict";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
// @ts-expect-error: a plain ES module script without type declarations
import { buildSatang } from "../../scripts/build.mjs";

const outdir = mkdtempSync(join(tmpdir(), "satang-build-"));
after(() => rmSync(outdir, { recursive: true, force: true }));

function readAll(fd: number): string {
  const size = 1 << 22;
  const buffer = Buffer.alloc(size);
  const length = readSync(fd, buffer, 0, size, 0);
  return buffer.subarray(0, length).toString("utf8");
}

describe("the build", () => {
  it("puts a changed entry in place by rename: a reader of the old one keeps it whole", async () => {
    const entry: string = await buildSatang(outdir, { service: true });
    const before = readFileSync(entry, "utf8");
    const fd = openSync(entry, "r");
    try {
      const inode = statSync(entry).ino;
      // The build with the test server beside it splits the code differently: a new entry.
      await buildSatang(outdir);
      const now = readFileSync(entry, "utf8");
      assert.notEqual(now, before, "the two builds should differ for this test to mean anything");
      assert.notEqual(statSync(entry).ino, inode, "a changed entry is a new file");
      assert.equal(readAll(fd), before, "the file a starting process opened is not rewritten under it");
    } finally {
      closeSync(fd);
    }
    assert.deepEqual(
      readdirSync(outdir).filter((name) => name.endsWith(".tmp")),
      [],
      "no temporary file is left behind",
    );
  });

  it("leaves an unchanged file as it is", async () => {
    const entry: string = await buildSatang(outdir);
    const inode = statSync(entry).ino;
    await buildSatang(outdir);
    assert.equal(statSync(entry).ino, inode);
  });
});
