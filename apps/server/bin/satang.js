#!/usr/bin/env node
// Launcher of the `satang` command: the CLI is TypeScript, run through tsx's loader so that
// `npx satang ...` works from the repository root without a build step.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
