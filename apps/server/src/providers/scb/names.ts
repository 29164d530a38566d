/** The name SCB is stored under with every payout, callback and anomaly it is part of. */
export const SCB_PROVIDER_NAME = "scb";
