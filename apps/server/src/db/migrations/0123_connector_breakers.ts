/**
 * Connector breakers shared between processes (docs/providers/routing.md): a process whose
 * breaker opens or closes records it here, and the other processes skip a connector another
 * process found down. In a deployment whose API processes run no jobs, only the worker asks the
 * connectors' reconciling questions, so without this row the processes that route new payments
 * would never learn that a connector whose QR is made locally (SCB) is down.
 */
export const statements: string[] = [
  `CREATE TABLE connector_breakers (
     connector text PRIMARY KEY,
     open boolean NOT NULL,
     changed_at timestamptz NOT NULL
   )`,
];
