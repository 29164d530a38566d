/**
 * The parts of Opn's objects this connector reads (docs/providers/opn.md). Every field is
 * `unknown`-safe at the edges: collection.ts and payouts.ts check each before using it.
 */

export interface OpnList<T> {
  object: "list";
  data: T[];
  limit?: number;
  offset?: number;
  total?: number;
}

export interface OpnCharge {
  object: "charge";
  id: string;
  livemode?: boolean;
  amount: unknown;
  currency: unknown;
  /** `pending`, `successful`, `failed`, `expired` or `reversed`. */
  status: unknown;
  paid?: unknown;
  paid_at?: unknown;
  expires_at?: unknown;
  failure_code?: unknown;
  metadata?: unknown;
  source?: {
    object?: "source";
    id?: string;
    type?: string;
    scannable_code?: { image?: { download_uri?: unknown } | null } | null;
  } | null;
}

export interface OpnRecipient {
  object: "recipient";
  id: string;
  verified?: unknown;
  active?: unknown;
  failure_code?: unknown;
}

export interface OpnTransfer {
  object: "transfer";
  id: string;
  amount?: unknown;
  recipient?: unknown;
  sent?: unknown;
  paid?: unknown;
  sent_at?: unknown;
  paid_at?: unknown;
  /** True when Opn will not retry the transfer after a failure. */
  fail_fast?: unknown;
  failure_code?: unknown;
  failure_message?: unknown;
  deleted?: unknown;
  metadata?: unknown;
}

export interface OpnEvent {
  object: "event";
  id?: unknown;
  key?: unknown;
  data?: unknown;
}
