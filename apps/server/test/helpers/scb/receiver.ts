/**
 * A stand-in for the service's confirmation endpoint: it receives SCB's payment confirmations
 * with their raw body, checks each with the connector, keeps the results, and acknowledges the
 * way SCB expects. The lifecycle's own route replaces it once the connector is wired in.
 */
import Fastify, { type FastifyInstance } from "fastify";
import {
  type ConfirmationCheck,
  confirmationAck,
  type ScbCollection,
} from "../../../src/providers/scb/collection.ts";

export interface ConfirmationReceiver {
  url: string;
  checks: ConfirmationCheck[];
  /** The next this-many confirmations are answered 500 before being looked at. */
  failNext: { count: number };
  close(): Promise<void>;
}

export async function startConfirmationReceiver(collection: ScbCollection): Promise<ConfirmationReceiver> {
  const app: FastifyInstance = Fastify({ logger: false });
  const checks: ConfirmationCheck[] = [];
  const failNext = { count: 0 };
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => done(null, body));
  app.post("/providers/scb/confirmations/test-token", async (request, reply) => {
    if (failNext.count > 0) {
      failNext.count -= 1;
      return reply.code(500).send({ resCode: "99", resDesc: "try again" });
    }
    const check = await collection.confirmPayment(String(request.body));
    checks.push(check);
    if (check.status === "malformed") return reply.code(400).send({ resCode: "99", resDesc: check.error });
    return reply.send(confirmationAck(check.claim.transactionId));
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url: `${address}/providers/scb/confirmations/test-token`,
    checks,
    failNext,
    close: () => app.close(),
  };
}
