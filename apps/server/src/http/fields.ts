/**
 * Field schemas shared by the request bodies of every resource, written once: the amount,
 * currency, reference, bank account and metadata rules of interface.md and CONTRACT 4.
 */
import { Type } from "typebox";
import { DIGIT_SEPARATOR_CLASS } from "../lib/account-number.ts";
import { BANK_CODES } from "../lib/bank-codes.ts";
import {
  ACCOUNT_NUMBER_DIGITS_MAX,
  ACCOUNT_NUMBER_DIGITS_MIN,
  ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
  CUSTOMER_NAME_LENGTH_MAX,
  DESCRIPTION_LENGTH_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  METADATA_KEY_LENGTH_MAX,
  METADATA_KEYS_MAX,
  METADATA_VALUE_LENGTH_MAX,
  REFERENCE_ID_PATTERN,
} from "../lib/limits.ts";
import { AMOUNT_WIRE_PATTERN, SIGNED_AMOUNT_WIRE_PATTERN } from "../lib/money.ts";
import { stringEnum } from "./list-query.ts";
import { AMOUNT_KEYWORD, ERROR_CODE_KEYWORD, ERROR_MESSAGE_KEYWORD } from "./validation.ts";

/** The amount request examples show: 10.00 THB. */
export const AMOUNT_EXAMPLE = "1000.00";

export const AMOUNT_MESSAGE =
  'must be an amount: a decimal string of whole satang greater than zero, such as "1000.00"';

/** A positive amount of whole satang; any present-but-invalid value is INVALID_AMOUNT. */
export function amountField(
  description = 'Decimal string of satang: "1000.00" is 10.00 THB. Greater than zero, whole satang.',
) {
  return Type.String({
    pattern: AMOUNT_WIRE_PATTERN,
    [AMOUNT_KEYWORD]: true,
    [ERROR_CODE_KEYWORD]: "INVALID_AMOUNT",
    [ERROR_MESSAGE_KEYWORD]: AMOUNT_MESSAGE,
    description,
    examples: [AMOUNT_EXAMPLE],
  });
}

/** A signed, non-zero amount of whole satang (operator wallet adjustments). */
export function signedAmountField(description: string) {
  return Type.String({
    pattern: SIGNED_AMOUNT_WIRE_PATTERN,
    [AMOUNT_KEYWORD]: "signed",
    [ERROR_CODE_KEYWORD]: "INVALID_AMOUNT",
    [ERROR_MESSAGE_KEYWORD]:
      'must be a signed decimal string of whole satang other than zero, such as "-500.00" or "1000.00"',
    description,
  });
}

export function currencyField() {
  return Type.Literal("THB", {
    [ERROR_CODE_KEYWORD]: "INVALID_CURRENCY",
    [ERROR_MESSAGE_KEYWORD]: 'must be "THB", the only supported currency',
    description: "Only THB; the default.",
  });
}

/** What a by-reference lookup accepts: any referenceId a create ever accepted. */
export const REFERENCE_MESSAGE = "must be 1-255 letters, digits, _, - or .";

/**
 * The referenceId of a create: interface.md's rule, 1-255 letters, digits, `_`, `-` and `.`.
 * "." and ".." are references like any other, though most clients cannot look one up by
 * reference: URL parsing removes those path segments (`%2E` too), so only a client that sends
 * the path as written reaches it (docs/payments.md; the SDK refuses them with a TypeError).
 */
export function referenceIdField(description: string) {
  return Type.String({
    pattern: REFERENCE_ID_PATTERN,
    [ERROR_CODE_KEYWORD]: "INVALID_REFERENCE_ID",
    [ERROR_MESSAGE_KEYWORD]: REFERENCE_MESSAGE,
    description,
  });
}

/**
 * An account holder's name: a visible character at least, and no control (Cc) or invisible
 * format (Cf: zero-width, direction marks) character. A bank's name never has one, and the name
 * goes into the payout desk's bank file and the operator's screens as it is.
 */
export function accountNameField(description: string) {
  return Type.String({
    minLength: 1,
    maxLength: CUSTOMER_NAME_LENGTH_MAX,
    pattern: "^[^\\p{Cc}\\p{Cf}]*[^\\s\\p{Cc}\\p{Cf}][^\\p{Cc}\\p{Cf}]*$",
    [ERROR_MESSAGE_KEYWORD]: `must be 1-${CUSTOMER_NAME_LENGTH_MAX} characters with a visible one, and no control or invisible characters`,
    description,
  });
}

/**
 * A bank's reference of a transfer as an operator types it from the bank's statement or app:
 * printable ASCII (letters, digits, punctuation, spaces inside), surrounding spaces (U+0020 only)
 * ignored.
 * Invisible and control characters, and letters of other scripts that look like Latin ones, are
 * refused: one transfer pays one payout, so a reference that reads as another one must not pass
 * as a different one (docs/payout-desk.md, "A bank reference pays one withdraw").
 */
export function bankReferenceField(max: number, description: string, examples?: string[]) {
  return Type.String({
    minLength: 1,
    maxLength: max,
    // Only the space itself around it: a tab, a line break or an invisible character is refused.
    pattern: "^ *[!-~](?:[ -~]*[!-~])? *$",
    [ERROR_MESSAGE_KEYWORD]: `must be the bank's reference as it shows it: at most ${max} printable ASCII characters (letters, digits, punctuation, inner spaces)`,
    description,
    ...(examples ? { examples } : {}),
  });
}

/** Digits with optional `-` and spaces between them, 10 to 15 digits (lib/account-number.ts). */
const ACCOUNT_NUMBER_INPUT_PATTERN = `^${DIGIT_SEPARATOR_CLASS}*([0-9]${DIGIT_SEPARATOR_CLASS}*){${ACCOUNT_NUMBER_DIGITS_MIN},${ACCOUNT_NUMBER_DIGITS_MAX}}$`;

export function accountNumberField(description: string) {
  return Type.String({
    maxLength: ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
    pattern: ACCOUNT_NUMBER_INPUT_PATTERN,
    [ERROR_MESSAGE_KEYWORD]: "must have 10 to 15 digits (- and spaces are ignored)",
    description,
  });
}

export function bankCodeField() {
  return stringEnum(BANK_CODES, {
    [ERROR_CODE_KEYWORD]: "INVALID_BANK_CODE",
    [ERROR_MESSAGE_KEYWORD]: "must be the 3-digit code of a bank operating in Thailand",
    description: "3-digit Thai bank code",
  });
}

export function descriptionField() {
  return Type.String({
    maxLength: DESCRIPTION_LENGTH_MAX,
    description: `At most ${DESCRIPTION_LENGTH_MAX} characters`,
  });
}

/**
 * Metadata is written as plain JSON Schema: TypeBox's Record allows keys through a pattern,
 * which would let a key with a line break escape the value rule.
 */
export function metadataField() {
  return Type.Unsafe<Record<string, string>>({
    type: "object",
    maxProperties: METADATA_KEYS_MAX,
    propertyNames: { minLength: 1, maxLength: METADATA_KEY_LENGTH_MAX },
    additionalProperties: { type: "string", maxLength: METADATA_VALUE_LENGTH_MAX },
    [ERROR_MESSAGE_KEYWORD]: `must be an object of at most ${METADATA_KEYS_MAX} keys of 1-${METADATA_KEY_LENGTH_MAX} characters with string values of at most ${METADATA_VALUE_LENGTH_MAX} characters`,
    description: `Up to ${METADATA_KEYS_MAX} keys of 1-${METADATA_KEY_LENGTH_MAX} characters; string values of at most ${METADATA_VALUE_LENGTH_MAX} characters.`,
  });
}

export function idempotencyKeyField() {
  return Type.String({
    pattern: IDEMPOTENCY_KEY_PATTERN,
    description: "1-255 printable ASCII characters. A retry reuses the key.",
  });
}

/** A body that must be empty: an empty JSON object is accepted, any field is refused. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

/** A by-reference path parameter: the referenceId sent at create, URL-encoded. */
export const ReferenceParams = Type.Object({
  referenceId: Type.String({
    pattern: REFERENCE_ID_PATTERN,
    [ERROR_MESSAGE_KEYWORD]: REFERENCE_MESSAGE,
    description: "The referenceId sent at create, URL-encoded",
  }),
});
