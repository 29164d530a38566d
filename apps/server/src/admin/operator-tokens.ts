/**
 * Named operator tokens (CONTRACT 2): one credential per person or tool instead of one shared
 * token, so the audit log and the payout desk record who acted, and one can be revoked alone.
 *
 * A token is `sat_op_` + 32 random bytes (base64url), shown once in the create answer; the
 * database keeps its SHA-256 (a copy of the database reveals no usable token) and its first
 * characters, so a list tells tokens apart. Authentication (auth.ts) reads the database on every
 * request, so a revoke takes effect at once on every process. ADMIN_TOKEN stays the bootstrap
 * token and is not in this list.
 */
import { type Db, withTransaction } from "../db/handles.ts";
import type { OperatorTokenRow } from "../db/types.ts";
import type { Page } from "../http/envelope.ts";
import { listPage } from "../http/list-query.ts";
import type { Clock } from "../lib/clock.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { AppError, fieldError, notFound } from "../lib/errors.ts";
import { isUuid, newId, randomToken } from "../lib/ids.ts";
import { OPERATOR_TOKEN_NAME_MAX, OPERATOR_TOKEN_RANDOM_BYTES, PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { pageOffset } from "../lib/page-offset.ts";
import { ADMIN_TOKEN_ACTOR } from "./actor.ts";
import {
  findActiveOperatorToken,
  insertOperatorToken,
  revokeOperatorTokenRow,
  selectOperatorTokens,
} from "./operator-token-store.ts";

export const OPERATOR_TOKEN_PREFIX = "sat_op_";
/** How much of a token a list shows: the fixed prefix and 4 random characters. */
const SHOWN_PREFIX_LENGTH = OPERATOR_TOKEN_PREFIX.length + 4;

export interface OperatorTokenView {
  id: string;
  name: string;
  tokenPrefix: string;
  createdBy: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface OperatorTokenContext {
  db: Db;
  wallClock: Clock;
}

export function operatorTokenView(row: OperatorTokenRow): OperatorTokenView {
  return {
    id: row.id,
    name: row.name,
    tokenPrefix: row.token_prefix,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** Control (Cc) and format (Cf: zero-width, direction marks) characters. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}]/u;

export const operatorTokenMissing = () => notFound("Operator token");
export const operatorTokenNameTaken = () =>
  new AppError("STATE_CONFLICT", "An operator token with this name exists (names are never reused)", {
    reason: "name_taken",
  });

/**
 * No token has this name: it is the actor name of the bootstrap ADMIN_TOKEN, which a named token
 * may not take (audit entries would be ambiguous). 409 like a taken name, with its own reason.
 */
export const operatorTokenNameReserved = () =>
  new AppError("STATE_CONFLICT", `${ADMIN_TOKEN_ACTOR} is reserved for the ADMIN_TOKEN operator`, {
    reason: "name_reserved",
  });

export async function createOperatorToken(
  ctx: OperatorTokenContext,
  input: { name: string },
  createdBy: string,
): Promise<OperatorTokenView & { token: string }> {
  // One form per name as people see it: compatibility characters folded (NFKC), so "ｓｏｍｃｈａｉ"
  // is "somchai"; names differing only in case are one name (operator-token-store.ts).
  const name = input.name.normalize("NFKC").trim();
  // Folding can lengthen a name ("㍿" is four characters folded): the bound holds for the name kept.
  const length = [...name].length;
  if (length < 1 || length > OPERATOR_TOKEN_NAME_MAX) {
    throw fieldError(
      "VALIDATION_ERROR",
      "name",
      `name must be 1-${OPERATOR_TOKEN_NAME_MAX} characters once compatibility characters are folded (NFKC); this one is ${length}`,
    );
  }
  // A name is what the audit log and the desk show of an actor: no control or invisible
  // character may make one look like another or act on an operator's terminal.
  if (UNSHOWABLE.test(name)) {
    throw fieldError("VALIDATION_ERROR", "name", "must not contain control or invisible format characters");
  }
  // The bootstrap token's actor name is not a name a named token may take: entries would be ambiguous.
  if (name.toLowerCase() === ADMIN_TOKEN_ACTOR) throw operatorTokenNameReserved();
  const token = OPERATOR_TOKEN_PREFIX + randomToken(OPERATOR_TOKEN_RANDOM_BYTES);
  const row = await withTransaction(ctx.db, async (trx) => {
    const inserted = await insertOperatorToken(trx, {
      id: newId(),
      name,
      token_sha256: sha256Hex(token),
      token_prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
      created_by: createdBy,
      created_at: ctx.wallClock.now(),
      revoked_at: null,
    });
    if (!inserted) throw operatorTokenNameTaken();
    return inserted;
  });
  return { ...operatorTokenView(row), token };
}

export async function listOperatorTokens(
  ctx: OperatorTokenContext,
  query: { page?: number; limit?: number },
): Promise<Page<OperatorTokenView>> {
  const params = { page: query.page ?? 1, limit: query.limit ?? PAGE_SIZE_DEFAULT };
  const { rows, total } = await selectOperatorTokens(ctx.db, {
    offset: pageOffset(params.page, params.limit),
    limit: params.limit,
  });
  return listPage(rows.map(operatorTokenView), total, params);
}

/** Revokes a token at once; revoking a revoked one answers it unchanged. */
export async function revokeOperatorToken(ctx: OperatorTokenContext, id: string): Promise<OperatorTokenView> {
  if (!isUuid(id)) throw operatorTokenMissing();
  const row = await withTransaction(ctx.db, (trx) => revokeOperatorTokenRow(trx, id, ctx.wallClock.now()));
  if (!row) throw operatorTokenMissing();
  return operatorTokenView(row);
}

/** The unrevoked token a presented secret names, if any (looked up by its SHA-256). */
export async function operatorTokenOf(
  db: Db,
  presentedSha256: string,
): Promise<OperatorTokenRow | undefined> {
  if (presentedSha256.length !== 64) return undefined;
  return findActiveOperatorToken(db, presentedSha256);
}
