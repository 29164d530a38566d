/**
 * Names of the files the server keeps in DATA_DIR that the CLI reads too. They live in this small
 * module so that the CLI can find them without loading the server.
 */
export const ADMIN_TOKEN_FILE = "admin-token";
