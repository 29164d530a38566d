/** The connector's name in SATANG_PROVIDER (CONTRACT 15: the sandbox default). */
export const SIMULATED_CONNECTOR_NAME = "simulated";
/**
 * The name the simulated bank's records carry (`payouts.provider`, `provider_callbacks`,
 * anomalies), as they always have: renaming it would split a deployment's history in two.
 */
export const SANDBOX_PROVIDER_NAME = "sandbox";
