/**
 * The token of an `Authorization: Bearer <token>` header (the scheme in any case, spaces around
 * the token allowed), or undefined when the header is missing or of another form. The operator
 * API, /metrics and the dashboard's sessions read their tokens through it.
 */
const BEARER_PATTERN = /^Bearer[ ]+([^\s]+)[ ]*$/i;

export function bearerToken(header: unknown): string | undefined {
  return typeof header === "string" ? BEARER_PATTERN.exec(header)?.[1] : undefined;
}
