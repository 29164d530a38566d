/**
 * Every migration by name, applied in name order (migrate.ts). The names are history: a store
 * records which it applied, so a name never changes, even where it names what a table was for
 * when it was made.
 */
import { statements as core } from "./0001_core.ts";
import { statements as paymentTransferAccount } from "./0002_payment_transfer_account.ts";
import { statements as ledgerWithdraws } from "./0003_ledger_withdraws.ts";
import { statements as events } from "./0004_events.ts";
import { statements as webhooks } from "./0005_webhooks.ts";
import { statements as lifecycle } from "./0006_lifecycle.ts";
import { statements as dashboard } from "./0007_dashboard.ts";
import { statements as changeNotify } from "./0010_change_notify.ts";
import { statements as webhookThroughput } from "./0020_webhook_throughput.ts";
import { statements as scb } from "./0030_scb.ts";
import { statements as payoutDesk } from "./0035_payout_desk.ts";
import { statements as listSortIndexes } from "./0040_list_sort_indexes.ts";
import { statements as listCounts } from "./0050_list_counts.ts";
import { statements as scbExchangeLookup } from "./0060_scb_exchange_lookup.ts";
import { statements as withdrawDayTotals } from "./0070_withdraw_day_totals.ts";
import { statements as payoutDeskRecords } from "./0081_payout_desk_records.ts";
import { statements as webhookEndpointDisabled } from "./0083_webhook_endpoint_disabled.ts";
import { statements as payoutUndecided } from "./0084_payout_undecided.ts";
import { statements as scbCollection } from "./0085_scb_collection.ts";
import { statements as refunds } from "./0086_refunds.ts";
import { statements as audit } from "./0090_audit.ts";
import { statements as promptpayReuseIndex } from "./0095_promptpay_reuse_index.ts";
import { statements as refundPayouts } from "./0096_refund_payouts.ts";
import { statements as opnRecipients } from "./0097_opn_recipients.ts";
import { statements as opnTransfers } from "./0098_opn_transfers.ts";
import { statements as paymentConnector } from "./0100_payment_connector.ts";
import { statements as providerConfirmations } from "./0101_provider_confirmations.ts";
import { statements as routing } from "./0105_routing.ts";
import { statements as clockOffsetIndex } from "./0106_clock_offset_index.ts";
import { statements as ledgerChecks } from "./0107_ledger_checks.ts";
import { statements as changesKeepPages } from "./0108_changes_keep_pages.ts";
import { statements as ledgerPlansByKey } from "./0109_ledger_plans_by_key.ts";
import { statements as ledgerAccountGuards } from "./0110_ledger_account_guards.ts";
import { statements as ledgerLateSuccessOverdraw } from "./0111_ledger_late_success_overdraw.ts";
import { statements as ledgerOverdrawnCredits } from "./0112_ledger_overdrawn_credits.ts";
import { statements as promptpayReuseWaiters } from "./0113_promptpay_reuse_waiters.ts";
import { statements as payoutWatching } from "./0114_payout_watching.ts";
import { statements as paymentKeyAliases } from "./0115_payment_key_aliases.ts";
import { statements as ledgerEntryOrder } from "./0116_ledger_entry_order.ts";
import { statements as auditActorFolded } from "./0117_audit_actor_folded.ts";
import { statements as refundRefundableWithheld } from "./0118_refund_refundable_withheld.ts";
import { statements as ledgerPostingSeqUnderLock } from "./0119_ledger_posting_seq_under_lock.ts";
import { statements as paymentsByMerchantReference } from "./0120_payments_by_merchant_reference.ts";
import { statements as webhookDeliveriesOldestFirst } from "./0121_webhook_deliveries_oldest_first.ts";
import { statements as dashboardSessionSecondFactor } from "./0122_dashboard_session_second_factor.ts";
import { statements as connectorBreakers } from "./0123_connector_breakers.ts";
import { statements as walletAdjustmentKeys } from "./0124_wallet_adjustment_keys.ts";
import { statements as payoutBatchOperator } from "./0125_payout_batch_operator.ts";
import { statements as webhookDeliveriesByMerchant } from "./0126_webhook_deliveries_by_merchant.ts";
import { statements as opnTransferOtherAmount } from "./0127_opn_transfer_other_amount.ts";

export const MIGRATIONS: Record<string, string[]> = {
  "0001_core": core,
  "0002_payment_transfer_account": paymentTransferAccount,
  "0003_ledger_withdraws": ledgerWithdraws,
  "0004_events": events,
  "0005_webhooks": webhooks,
  "0006_lifecycle": lifecycle,
  "0007_dashboard": dashboard,
  "0010_change_notify": changeNotify,
  "0020_webhook_throughput": webhookThroughput,
  "0030_scb": scb,
  "0035_payout_desk": payoutDesk,
  "0040_list_sort_indexes": listSortIndexes,
  "0050_list_counts": listCounts,
  "0060_scb_exchange_lookup": scbExchangeLookup,
  "0070_withdraw_day_totals": withdrawDayTotals,
  "0081_payout_desk_records": payoutDeskRecords,
  "0083_webhook_endpoint_disabled": webhookEndpointDisabled,
  "0085_scb_collection": scbCollection,
  "0084_payout_undecided": payoutUndecided,
  "0090_audit": audit,
  "0095_promptpay_reuse_index": promptpayReuseIndex,
  "0086_refunds": refunds,
  "0096_refund_payouts": refundPayouts,
  "0097_opn_recipients": opnRecipients,
  "0098_opn_transfers": opnTransfers,
  "0100_payment_connector": paymentConnector,
  "0101_provider_confirmations": providerConfirmations,
  "0105_routing": routing,
  "0106_clock_offset_index": clockOffsetIndex,
  "0107_ledger_checks": ledgerChecks,
  "0108_changes_keep_pages": changesKeepPages,
  "0109_ledger_plans_by_key": ledgerPlansByKey,
  "0110_ledger_account_guards": ledgerAccountGuards,
  "0111_ledger_late_success_overdraw": ledgerLateSuccessOverdraw,
  "0112_ledger_overdrawn_credits": ledgerOverdrawnCredits,
  "0113_promptpay_reuse_waiters": promptpayReuseWaiters,
  "0114_payout_watching": payoutWatching,
  "0115_payment_key_aliases": paymentKeyAliases,
  "0116_ledger_entry_order": ledgerEntryOrder,
  "0117_audit_actor_folded": auditActorFolded,
  "0118_refund_refundable_withheld": refundRefundableWithheld,
  "0119_ledger_posting_seq_under_lock": ledgerPostingSeqUnderLock,
  "0120_payments_by_merchant_reference": paymentsByMerchantReference,
  "0121_webhook_deliveries_oldest_first": webhookDeliveriesOldestFirst,
  "0122_dashboard_session_second_factor": dashboardSessionSecondFactor,
  "0123_connector_breakers": connectorBreakers,
  "0124_wallet_adjustment_keys": walletAdjustmentKeys,
  "0125_payout_batch_operator": payoutBatchOperator,
  "0126_webhook_deliveries_by_merchant": webhookDeliveriesByMerchant,
  "0127_opn_transfer_other_amount": opnTransferOtherAmount,
};
