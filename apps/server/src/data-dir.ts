/**
 * Names of the files the service keeps in DATA_DIR (docs/operations.md lists them). They live
 * in this small module, apart from the server, so that the CLI can find them (the operator
 * token of a sandbox) without loading the server.
 */

/** DATA_DIR when it is unset, relative to the working directory. */
export const DEFAULT_DATA_DIR = "./data";

/** The operator token generated at a sandbox's first start, readable only by its owner. */
export const ADMIN_TOKEN_FILE = "admin-token";

/** The key generated in sandbox when SECRET_KEY is unset. */
export const SECRET_KEY_FILE = "secret.key";

/**
 * The embedded database lives in its own directory under DATA_DIR, apart from the key and token
 * files, so a copy or dump of the database never carries the key that opens its secrets.
 */
export const EMBEDDED_DATABASE_DIR = "pglite";

/** The embedded store's one-process lock: the pid of the process that owns it. */
export const DATA_DIR_LOCK_FILE = "satang.pid";
