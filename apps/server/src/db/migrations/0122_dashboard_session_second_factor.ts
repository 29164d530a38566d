/**
 * Whether a dashboard session was signed in with a two-factor code (docs/security.md): in live,
 * a new API key needs a session that was, not only a user who is enrolled now. A session signed
 * in with the password alone stays without it after its user enrols in it, so neither a session
 * token taken from a user who had not enrolled nor that user's password alone in one session
 * mints a key. Sessions from before this migration read false: an enrolled user signs in again
 * once to make a key.
 */
export const statements: string[] = [
  `ALTER TABLE dashboard_sessions ADD COLUMN second_factor boolean NOT NULL DEFAULT false`,
];
