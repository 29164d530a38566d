/**
 * Named operator tokens and the audit log in the operator API (CONTRACT 2), under /admin/v1:
 * create (the token is in that answer only), list without secrets, revoke; and the audit log's
 * list with the filters of CONTRACT 11 plus actor, action and recordId.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { AuditLogEnvelope, AuditLogQuery } from "../audit/schemas.ts";
import { listAuditLog } from "../audit/service.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { operatorActor } from "./actor.ts";
import {
  CreatedOperatorTokenEnvelope,
  CreateOperatorTokenBody,
  OperatorTokenEnvelope,
  OperatorTokenListEnvelope,
} from "./operator-token-schemas.ts";
import {
  createOperatorToken,
  listOperatorTokens,
  type OperatorTokenContext,
  operatorTokenMissing,
  operatorTokenNameReserved,
  operatorTokenNameTaken,
  revokeOperatorToken,
} from "./operator-tokens.ts";
import { IdParams, PageQuery } from "./schemas.ts";

const TAGS = ["admin"];

export function operatorTokenRoutes(ctx: OperatorTokenContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    createRoute(app, ctx);
    listRoute(app, ctx);
    revokeRoute(app, ctx);
    auditLogRoute(app, ctx);
  };
}

function createRoute(app: App, ctx: OperatorTokenContext): void {
  app.post(
    "/operator-tokens",
    {
      schema: {
        tags: TAGS,
        summary: "Create a named operator token (the token is shown only here)",
        operationId: "createOperatorToken",
        description:
          "A bearer token for one operator or tool, accepted wherever ADMIN_TOKEN is. The audit log " +
          "and the payout desk record its name. Names are unique for ever (a revoked token's name is " +
          "not reused) and compared without case, in NFKC form: a taken name is 409 STATE_CONFLICT " +
          "(reason name_taken). admin-token, in " +
          "any case, is reserved for the ADMIN_TOKEN operator: 409 STATE_CONFLICT (reason " +
          "name_reserved).",
        body: CreateOperatorTokenBody,
        "x-errors": [
          documented("This name is taken", operatorTokenNameTaken()),
          documented(
            "The name is admin-token (in any case), reserved for ADMIN_TOKEN",
            operatorTokenNameReserved(),
          ),
        ],
        response: { 201: CreatedOperatorTokenEnvelope },
      },
    },
    async (request, reply) => {
      const created = await createOperatorToken(ctx, request.body, operatorActor(request).name);
      // The token is a credential: no cache between the server and the operator keeps it.
      reply.header("Cache-Control", "no-store");
      return reply.code(201).send(ok(created));
    },
  );
}

function listRoute(app: App, ctx: OperatorTokenContext): void {
  app.get(
    "/operator-tokens",
    {
      schema: {
        tags: TAGS,
        summary: "List named operator tokens, revoked ones included, never their secrets",
        operationId: "listOperatorTokens",
        querystring: PageQuery,
        response: { 200: OperatorTokenListEnvelope },
      },
    },
    async (request) => ok(await listOperatorTokens(ctx, request.query)),
  );
}

function revokeRoute(app: App, ctx: OperatorTokenContext): void {
  app.post(
    "/operator-tokens/:id/revoke",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags: TAGS,
        summary: "Revoke a named operator token: it stops working at once, on every process",
        operationId: "revokeOperatorToken",
        description: "Revoking a revoked token answers it unchanged (200).",
        params: IdParams,
        body: EmptyBody,
        "x-errors": [documented("No operator token has this id", operatorTokenMissing())],
        response: { 200: OperatorTokenEnvelope },
      },
    },
    async (request) => ok(await revokeOperatorToken(ctx, request.params.id)),
  );
}

function auditLogRoute(app: App, ctx: OperatorTokenContext): void {
  app.get(
    "/audit-log",
    {
      schema: {
        tags: TAGS,
        summary: "List the audit log: who did what to which record, from where and when",
        operationId: "listAuditLog",
        description:
          "Every state-changing action of an operator token, ADMIN_TOKEN, the payout desk or a " +
          "dashboard user, newest first unless sortOrder=asc (sortBy takes createdAt only; ties " +
          "are broken by id). Entries are append-only: no route changes or deletes one.",
        querystring: AuditLogQuery,
        response: { 200: AuditLogEnvelope },
      },
    },
    async (request) => ok(await listAuditLog(ctx, request.query)),
  );
}
