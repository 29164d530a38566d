/**
 * Who an operator request acts as, for the records that keep it (the payout desk's outcomes;
 * the audit log of CONTRACT 2 later).
 *
 * `name` comes from the credential, never from the caller's say-so: operator authentication
 * (auth.ts) sets it when it accepts the token. A named operator token (CONTRACT 2,
 * operator-tokens.ts) is its own name; the bootstrap ADMIN_TOKEN (or the token generated at
 * first start, which stands in for it) is "admin-token".
 *
 * `via` is the tool the operator used, as the tool declares it in the X-Satang-Client header
 * ("cli" from `npx satang`, "desk" from the payout desk page); anything else is "api". It is a
 * convenience for reading the record, not a credential.
 */
import type { FastifyRequest } from "fastify";
import type { AuditActor } from "../audit/service.ts";

export const OPERATOR_CHANNELS = ["api", "cli", "desk"] as const;
export type OperatorChannel = (typeof OPERATOR_CHANNELS)[number];

/** The actor name of the bootstrap operator token, ADMIN_TOKEN. */
export const ADMIN_TOKEN_ACTOR = "admin-token";

/** The header a tool names itself in. */
export const OPERATOR_CLIENT_HEADER = "x-satang-client";

export interface OperatorActor {
  name: string;
  via: OperatorChannel;
  /** The named operator token's id; null for ADMIN_TOKEN. */
  tokenId: string | null;
}

interface Credential {
  name: string;
  tokenId: string | null;
}

const actors = new WeakMap<FastifyRequest, Credential>();

/** Called by operator authentication once it has accepted the request's credential. */
export function setOperatorActor(request: FastifyRequest, name: string, tokenId: string | null = null): void {
  actors.set(request, { name, tokenId });
}

function channelOf(request: FastifyRequest): OperatorChannel {
  const declared = request.headers[OPERATOR_CLIENT_HEADER];
  const value = typeof declared === "string" ? declared.trim().toLowerCase() : "";
  return value === "cli" || value === "desk" ? value : "api";
}

/**
 * The actor of an authenticated operator request. A route behind operator authentication
 * always has one; reaching this without one is a wiring mistake, so it stops the request.
 */
export function operatorActor(request: FastifyRequest): OperatorActor {
  const credential = actors.get(request);
  if (credential === undefined)
    throw new Error("operatorActor called on a request operator authentication did not accept");
  return { name: credential.name, tokenId: credential.tokenId, via: channelOf(request) };
}

/** The audit log's actor (audit/service.ts) of an authenticated operator request. */
export function operatorAuditActor(request: FastifyRequest): AuditActor {
  const actor = operatorActor(request);
  return {
    kind: actor.tokenId === null ? "admin_token" : "operator_token",
    id: actor.tokenId,
    name: actor.name,
    via: actor.via,
  };
}
