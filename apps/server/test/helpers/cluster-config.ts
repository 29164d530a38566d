/**
 * What the test process and the server processes it forks must agree on: the operator token
 * and the key that encrypts integration secrets (the same as harness.ts uses, so an
 * integration created by a test's in-process service authenticates against the forked ones).
 */
export { ADMIN_TOKEN } from "./harness.ts";
export const TEST_SECRET_KEY = Buffer.alloc(32, 7);
