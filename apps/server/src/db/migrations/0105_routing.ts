/**
 * Routing between connectors (CONTRACT 15, docs/providers/routing.md).
 *
 * - `payments.qr_image_url`: the QR image a connector made for a payment (a connector
 *   that gives the image, not the EMVCo payload), shown on the hosted page and as `nextAction.qrImageUrl`; NULL when
 *   the payment's QR is drawn from `qr_payload`.
 * - `merchants.provider`: the connector an operator pinned the merchant to (`PATCH
 *   /admin/v1/merchants/{id}` `provider`); NULL routes its payments by SATANG_PROVIDER's order.
 */
export const statements: string[] = [
  `ALTER TABLE payments ADD COLUMN qr_image_url text`,
  `ALTER TABLE merchants ADD COLUMN provider text`,
];
