/**
 * Which webhook URLs the service may send to (CONTRACT 12; server-side request forgery).
 *
 * A webhook URL is the one place where a merchant makes the service open a connection of the
 * merchant's choosing, so the rule is "public unicast addresses only": every address the host
 * resolves to (all A and AAAA records) must be a public unicast address, otherwise the URL is
 * refused. Refused: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
 * (169.254/16 with the cloud metadata address, fe80::/10), unspecified (0/8, ::), shared CGNAT
 * (100.64/10), multicast, broadcast, reserved and documentation ranges, IPv6 outside global
 * unicast (2000::/3), and IPv6 forms that embed an IPv4 address (mapped ::ffff:0:0/96, NAT64,
 * 6to4, Teredo), which are refused outright rather than trusted to route where they say.
 *
 * Numeric host forms such as `2130706433`, `0x7f000001`, `0177.0.0.1` or `127.1` need no
 * special case: the WHATWG URL parser turns them into the dotted address, which is then
 * checked like any other. `localhost` and `*.localhost` are loopback by definition (RFC 6761)
 * and are refused without asking DNS.
 *
 * The check runs at registration and again before every delivery, and the delivery connects to
 * the address that passed (events/sender.ts pins it), so a name that is re-pointed at a
 * private address between the check and the connection (DNS rebinding) is never reached.
 *
 * Sandbox may allow loopback (config `webhookAllowLoopback`) so a developer can receive events
 * on their own machine; every other refused range stays refused there too. Live requires https.
 */
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import type { ResolvedAddress, Resolver } from "./settings.ts";

export interface UrlPolicy {
  allowLoopback: boolean;
  requireHttps: boolean;
}

/** A URL the service will not send to; the message is safe to show to the merchant. */
export class UrlRefused extends Error {
  /** `unresolved` when the host did not resolve; `forbidden` for every rule of this module. */
  readonly reason: "forbidden" | "unresolved";

  constructor(message: string, reason: "forbidden" | "unresolved" = "forbidden") {
    super(message);
    this.name = "UrlRefused";
    this.reason = reason;
  }
}

/** Where a delivery connects: the checked URL and the one address it is pinned to. */
export interface VettedTarget {
  url: URL;
  /** The host without IPv6 brackets and without a trailing dot. */
  host: string;
  address: string;
  family: 4 | 6;
}

const RANGE_NAMES: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  linkLocal: "a link-local address (this includes cloud metadata services)",
  unspecified: "an unspecified address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved address",
  rfc6052: "an IPv6 address that embeds an IPv4 address (NAT64)",
  rfc6145: "an IPv6 address that embeds an IPv4 address",
  "6to4": "an IPv6 address that embeds an IPv4 address (6to4)",
  teredo: "an IPv6 address that embeds an IPv4 address (Teredo)",
};

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

function describe(range: string): string {
  return RANGE_NAMES[range] ?? "not a public address";
}

/**
 * Why `address` may not be reached, or undefined when it may. Unknown ranges are refused: only
 * what ipaddr.js calls plain unicast (and, for IPv6, lies in 2000::/3) passes.
 */
export function addressRefusal(
  address: string,
  policy: Pick<UrlPolicy, "allowLoopback">,
): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "not an IP address";
  }
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const inner = addressRefusal(v6.toIPv4Address().toString(), policy);
      return inner === undefined ? describe("rfc6145") : inner;
    }
    const range = v6.range();
    if (range === "loopback") return policy.allowLoopback ? undefined : describe(range);
    if (range !== "unicast") return describe(range);
    if (!v6.match(GLOBAL_UNICAST_V6)) return describe("reserved");
    return undefined;
  }
  const range = (parsed as ipaddr.IPv4).range();
  if (range === "loopback") return policy.allowLoopback ? undefined : describe(range);
  if (range !== "unicast") return describe(range);
  return undefined;
}

/**
 * The syntax rules: an absolute http(s) URL (https only when the policy says so) with a host and
 * a port from 1 to 65535 when it names one, without user name or password (they would be sent to the receiver in the clear, and they
 * disguise the host to a reader: https://bank.example@10.0.0.1/).
 */
function parseWebhookUrl(text: string, policy: Pick<UrlPolicy, "requireHttps">): URL {
  // The URL parser drops surrounding spaces; the endpoint would keep them in its record.
  if (text.trim() !== text) throw new UrlRefused("url must not start or end with spaces");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlRefused("url must be an absolute http or https URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UrlRefused("url must be an absolute http or https URL");
  }
  if (policy.requireHttps && url.protocol !== "https:") {
    throw new UrlRefused("url must use https in the live environment");
  }
  if (url.username !== "" || url.password !== "") {
    throw new UrlRefused("url must not contain a user name or password");
  }
  if (url.hostname === "") throw new UrlRefused("url must have a host");
  // Port 0 parses, but no receiver listens on it: a connection to it goes to the scheme's
  // default port instead, which is not the address the merchant registered.
  if (url.port === "0") throw new UrlRefused("url must name a port from 1 to 65535");
  return url;
}

function bareHost(url: URL): string {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase();
  return name === "localhost" || name.endsWith(".localhost");
}

function familyOf(address: string): 4 | 6 {
  return isIP(address) === 6 ? 6 : 4;
}

/**
 * One message for a host that resolves to a refused address and for one that does not resolve:
 * two would tell a caller which internal names exist. The reason still differs, for the
 * delivery log's error kinds (events/attempt-errors.ts).
 */
function notReachable(host: string, reason: "forbidden" | "unresolved"): UrlRefused {
  return new UrlRefused(`url host ${host} is not an address webhooks may reach`, reason);
}

async function resolveAll(host: string, resolve: Resolver): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    throw notReachable(host, "unresolved");
  }
  if (addresses.length === 0) throw notReachable(host, "unresolved");
  return addresses;
}

/**
 * Checks a URL completely: syntax, then every address its host resolves to. Returns the
 * address to connect to (the first one; all of them passed). Throws UrlRefused.
 */
export async function vetWebhookUrl(
  text: string,
  policy: UrlPolicy,
  resolve: Resolver,
): Promise<VettedTarget> {
  const url = parseWebhookUrl(text, policy);
  const host = bareHost(url);
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, policy);
    if (refusal) throw new UrlRefused(`url points at ${host}, ${refusal}, which webhooks may not reach`);
    return { url, host, address: host, family: familyOf(host) };
  }
  if (isLocalhostName(host) && !policy.allowLoopback) {
    throw new UrlRefused(`url host ${host} is a loopback name, which webhooks may not reach`);
  }
  // A `*.localhost` name where loopback is allowed is loopback whatever the resolver says
  // (RFC 6761): one the resolver does not know is 127.0.0.1.
  const addresses =
    isLocalhostName(host) && host.toLowerCase() !== "localhost"
      ? await resolveAll(host, resolve).catch(() => [{ address: "127.0.0.1", family: 4 }])
      : await resolveAll(host, resolve);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy);
    // The caller learns that the address is refused, never what an internal name resolves to.
    if (refusal) throw notReachable(host, "forbidden");
  }
  const pinned = addresses[0]!;
  return { url, host, address: pinned.address, family: familyOf(pinned.address) };
}
