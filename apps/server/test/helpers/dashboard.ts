/**
 * Dashboard test helpers: a user of a merchant, logged in, and requests with its session token.
 */
import type { LightMyRequestResponse } from "fastify";
import type { TestResponse, TestService } from "./harness.ts";

export const DASHBOARD_PASSWORD = "correct horse battery staple";

let counter = 0;

export interface DashboardUser {
  email: string;
  password: string;
  token: string;
  /** A dashboard API request (path under /dashboard/api) with this user's session. */
  request<T = any>(method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
}

function toResponse(raw: LightMyRequestResponse): TestResponse {
  const type = String(raw.headers["content-type"] ?? "");
  return {
    status: raw.statusCode,
    headers: raw.headers,
    body: type.includes("application/json") ? raw.json() : raw.body,
    raw,
  };
}

/** Creates a dashboard user through the operator API. */
export async function createDashboardUser(
  svc: TestService,
  merchantId: string = svc.credentials.merchantId,
  email = `dash-${process.pid}-${++counter}@shop.example`,
  role?: "owner" | "developer" | "finance",
): Promise<{ email: string; password: string }> {
  const res = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/users`, {
    email,
    password: DASHBOARD_PASSWORD,
    ...(role === undefined ? {} : { role }),
  });
  if (res.status !== 201)
    throw new Error(`creating a dashboard user: ${res.status} ${JSON.stringify(res.body)}`);
  return { email, password: DASHBOARD_PASSWORD };
}

/** A new dashboard user of the merchant, logged in. */
export async function dashboardUser(
  svc: TestService,
  merchantId: string = svc.credentials.merchantId,
  role?: "owner" | "developer" | "finance",
): Promise<DashboardUser> {
  const { email, password } = await createDashboardUser(svc, merchantId, undefined, role);
  const login = await svc.app.inject({
    method: "POST",
    url: "/api/v1/auth/login",
    payload: JSON.stringify({ email, password }),
    headers: { "content-type": "application/json" },
  });
  if (login.statusCode !== 200) throw new Error(`dashboard login: ${login.statusCode} ${login.body}`);
  const token: string = login.json().data.token;
  return {
    email,
    password,
    token,
    request: async (method, path, body) => {
      const raw = await svc.app.inject({
        method: method as "GET",
        url: `/dashboard/api${path}`,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      return toResponse(raw);
    },
  };
}
