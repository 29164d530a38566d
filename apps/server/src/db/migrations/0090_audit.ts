/**
 * Who did what, and who may (CONTRACT 2 and 13).
 *
 * - `operator_tokens`: named operator credentials beside the bootstrap ADMIN_TOKEN. Only the
 *   SHA-256 of a token is kept (a copy of the database cannot be used to act as an operator);
 *   `token_prefix` is its first characters, so a list can tell tokens apart without secrets.
 *   A name is unique for ever, revoked tokens included, so an audit entry names one token.
 * - `audit_log`: one row per state-changing action of an operator token, a dashboard user or the
 *   payout desk. Append-only in the database itself: a trigger refuses UPDATE, DELETE and
 *   TRUNCATE, whatever the caller (the service has no route that would try).
 * - `dashboard_users.role`: owner, developer or finance; existing users stay owners, as they
 *   could do everything before. `totp_*`: the user's authenticator secret, sealed under
 *   SECRET_KEY like integration secrets; `totp_pending_secret` is an enrolment not yet confirmed
 *   with a code; `totp_last_step` is the 30-second step of the last accepted code, so one code
 *   logs in once.
 */
export const statements: string[] = [
  `CREATE TABLE operator_tokens (
    id uuid PRIMARY KEY,
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    token_sha256 text NOT NULL CHECK (char_length(token_sha256) = 64),
    token_prefix text NOT NULL,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz,
    CONSTRAINT operator_tokens_name_unique UNIQUE (name),
    CONSTRAINT operator_tokens_token_unique UNIQUE (token_sha256)
  )`,

  `CREATE TABLE audit_log (
    id uuid PRIMARY KEY,
    created_at timestamptz NOT NULL,
    actor_kind text NOT NULL CHECK (actor_kind IN ('admin_token', 'operator_token', 'dashboard_user')),
    actor_id uuid,
    actor_name text NOT NULL CHECK (char_length(actor_name) BETWEEN 1 AND 254),
    via text NOT NULL CHECK (via IN ('api', 'cli', 'desk', 'dashboard')),
    action text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 100),
    record_type text NOT NULL CHECK (char_length(record_type) BETWEEN 1 AND 50),
    record_id text CHECK (char_length(record_id) BETWEEN 1 AND 255),
    merchant_id uuid,
    request_id text NOT NULL,
    client_address text NOT NULL
  )`,
  `CREATE INDEX audit_log_created ON audit_log (created_at DESC, id DESC)`,
  `CREATE INDEX audit_log_merchant ON audit_log (merchant_id, created_at DESC, id DESC)`,
  `CREATE INDEX audit_log_record ON audit_log (record_id)`,
  `CREATE INDEX audit_log_actor ON audit_log (actor_name)`,
  `CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END
  $$`,
  `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
  `CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`,

  `ALTER TABLE dashboard_users ADD COLUMN role text NOT NULL DEFAULT 'owner'
    CHECK (role IN ('owner', 'developer', 'finance'))`,
  `ALTER TABLE dashboard_users ADD COLUMN totp_secret text`,
  `ALTER TABLE dashboard_users ADD COLUMN totp_pending_secret text`,
  `ALTER TABLE dashboard_users ADD COLUMN totp_enabled_at timestamptz`,
  `ALTER TABLE dashboard_users ADD COLUMN totp_last_step bigint`,
  `ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_totp_enabled
    CHECK ((totp_secret IS NULL) = (totp_enabled_at IS NULL))`,
];
