/**
 * The first signed request as a shell snippet: printed with real credentials at first start
 * (bootstrap.ts) and with placeholders on the sandbox landing page.
 */

/** Single-quotes a value for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A ready-to-paste shell snippet that creates a PromptPay payment with a v1 signature. */
export function curlExample(baseUrl: string, apiKey: string, apiSecret: string): string {
  const body =
    '{"amount":"10000.00","currency":"THB","referenceId":"demo-\'"$TS"\'","paymentMethod":"promptpay",' +
    '"customerBankAccountName":"Somchai Jaidee","customerBankAccountNumber":"0987654321",' +
    '"customerBankCode":"004","description":"First test payment"}';
  return [
    `API_KEY=${shellQuote(apiKey)}`,
    `API_SECRET=${shellQuote(apiSecret)}`,
    "TS=$(date +%s000)",
    `BODY='${body}'`,
    `SIG=$(printf '%s' "$TS.$BODY" | openssl dgst -sha256 -hmac "$API_SECRET" | awk '{print $NF}')`,
    `curl -sS -X POST ${shellQuote(`${baseUrl}/api/v1/payments`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H "X-API-Key: $API_KEY" -H "X-Timestamp: $TS" -H "X-Signature: sha256=$SIG" \\`,
    `  -d "$BODY"`,
  ].join("\n");
}
