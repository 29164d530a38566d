/**
 * The dashboard's people (CONTRACT 13), registered inside dashboardApiRoutes behind its session
 * and role checks: owners list the merchant's users, add one with a role, and change roles;
 * every user enrols their own TOTP authenticator (an owner in live must, before anything else).
 */
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import type { App } from "../http/typed-app.ts";
import { EVERY_ROLE, OWNERS } from "./roles.ts";
import {
  ChangeRoleBody,
  DashboardCreateUserBody,
  IdParams,
  TwoFactorConfirmBody,
  TwoFactorEnrolBody,
  TwoFactorEnrolmentEnvelope,
  UserEnvelope,
  UserListEnvelope,
  UserListQuery,
} from "./schemas.ts";
import { type SessionContext, sessionOf } from "./sessions.ts";
import { confirmEnrolment, startEnrolment } from "./two-factor.ts";
import { changeUserRole, createDashboardUser, listUsers } from "./users.ts";

type UserRouteContext = SessionContext & { clock: SessionContext["wallClock"] };

export function userRoutes(app: App, ctx: UserRouteContext): void {
  app.get(
    "/users",
    {
      config: { roles: OWNERS },
      schema: { querystring: UserListQuery, response: { 200: UserListEnvelope } },
    },
    async (request) => ok(await listUsers(ctx, sessionOf(request).merchant.id, request.query)),
  );
  app.post(
    "/users",
    { config: { roles: OWNERS }, schema: { body: DashboardCreateUserBody, response: { 201: UserEnvelope } } },
    async (request, reply) => {
      const user = await createDashboardUser(ctx, sessionOf(request).merchant.id, request.body);
      return reply.code(201).send(ok(user));
    },
  );
  app.patch(
    "/users/:id",
    {
      config: { roles: OWNERS },
      schema: { params: IdParams, body: ChangeRoleBody, response: { 200: UserEnvelope } },
    },
    async (request) =>
      ok(await changeUserRole(ctx, sessionOf(request).merchant.id, request.params.id, request.body.role)),
  );
  twoFactorRoutes(app, ctx);
}

function twoFactorRoutes(app: App, ctx: UserRouteContext): void {
  const config = { roles: EVERY_ROLE, beforeTwoFactor: true };
  app.post(
    "/two-factor/enrol",
    {
      config,
      preValidation: emptyBodyAsObject,
      schema: { body: TwoFactorEnrolBody, response: { 200: TwoFactorEnrolmentEnvelope } },
    },
    async (request) => ok(await startEnrolment(ctx, sessionOf(request).user, request.body.otp)),
  );
  app.post(
    "/two-factor/confirm",
    { config, schema: { body: TwoFactorConfirmBody, response: { 200: UserEnvelope } } },
    async (request) => ok(await confirmEnrolment(ctx, sessionOf(request).user, request.body.otp)),
  );
}
