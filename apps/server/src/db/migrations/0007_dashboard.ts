/**
 * The merchant dashboard (CONTRACT 13): its users, their login sessions, and the failed logins
 * the lockout counts.
 *
 * - An email is unique across the service whatever its case: `email_normalized` holds the
 *   lowercased form the service computes (lib code, not SQL `lower()`, whose result depends on
 *   the database's locale), and the unique constraint sits on it.
 * - A session row keeps only the SHA-256 of its token, so a copy of the database cannot be used
 *   to log in. Session times are wall-clock: a merchant's sandbox test clock never ends or
 *   extends a session.
 * - Failed logins live in the database rather than in process memory, so the lockout holds
 *   across every process of a deployment.
 */
export const statements: string[] = [
  `CREATE TABLE dashboard_users (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
    email_normalized text NOT NULL,
    password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT dashboard_users_email_unique UNIQUE (email_normalized)
  )`,
  `CREATE INDEX dashboard_users_merchant ON dashboard_users (merchant_id)`,
  `CREATE TABLE dashboard_sessions (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES dashboard_users (id),
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    token_sha256 text NOT NULL CHECK (char_length(token_sha256) = 64),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
    revoked_at timestamptz,
    CONSTRAINT dashboard_sessions_token_unique UNIQUE (token_sha256)
  )`,
  `CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at)`,
  `CREATE TABLE dashboard_login_failures (
    id uuid PRIMARY KEY,
    email_normalized text NOT NULL,
    failed_at timestamptz NOT NULL
  )`,
  `CREATE INDEX dashboard_login_failures_email ON dashboard_login_failures (email_normalized, failed_at)`,
  `CREATE INDEX dashboard_login_failures_failed_at ON dashboard_login_failures (failed_at)`,
];
