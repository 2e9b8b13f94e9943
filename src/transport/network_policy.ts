// The network policy's checks (`withNetworkPolicy`), for the runtimes whose
// pool can check the address a connection is made to (deno_pools.ts's Deno
// relay, runtime_node.ts's undici lookup): a URL whose host is an address
// is checked as it is; a host name is resolved, each answer checked, and
// only the allowed ones handed to the connection, so the address connected
// to is the address checked. Only the runtimes with a pool import this file.

import { formatIp, inRange, parseIp, parseRange, specialRange } from "./addresses.ts";
import type { AddressRule, IpRange, IpValue } from "./addresses.ts";
import { BlockedFailure } from "./failures.ts";
import { RuntimeLimitError } from "../errors.ts";
import type { Abort, NetworkPolicy, Transport } from "./types.ts";

/** A policy's lists, parsed once. */
interface Rules {
  readonly special: boolean;
  readonly deny: readonly (readonly [string, IpRange])[];
  readonly allowHosts: readonly string[];
  readonly allow: readonly IpRange[];
}

const parsed = new WeakMap<NetworkPolicy, Rules>();

function rulesOf(policy: NetworkPolicy): Rules {
  let rules = parsed.get(policy);
  if (rules === undefined) {
    const ranges = (entries: readonly string[]) =>
      entries.flatMap((entry) => {
        const range = parseRange(entry);
        return range === undefined ? [] : [[entry, range] as const];
      });
    rules = {
      special: policy.deny.includes("private"),
      deny: ranges(policy.deny),
      allowHosts: policy.allow.filter((entry) => parseRange(entry) === undefined),
      allow: ranges(policy.allow).map(([, range]) => range),
    };
    parsed.set(policy, rules);
  }
  return rules;
}

/** The rule refusing `ip`, or `undefined`: a range of `allow` wins over every rule. */
export function addressRefusal(policy: NetworkPolicy, ip: IpValue): AddressRule | undefined {
  const rules = rulesOf(policy);
  if (rules.allow.some((range) => inRange(ip, range))) return undefined;
  const denied = rules.deny.find(([, range]) => inRange(ip, range));
  if (denied !== undefined) return { rule: "deny", range: denied[0] };
  return rules.special ? specialRange(ip) : undefined;
}

/**
 * True when `allow` names the host name: itself, or a parent domain written
 * `.example.com` (or `*.example.com`). An allowed host's addresses are not
 * checked.
 */
export function hostAllowed(policy: NetworkPolicy, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return rulesOf(policy).allowHosts.some((entry) => {
    const name = entry.replace(/^\*/, "");
    return name.startsWith(".") ? host.endsWith(name) || host === name.slice(1) : host === name;
  });
}

/**
 * What the policy says of `url` before any connection: a
 * {@linkcode BlockedFailure} when its host is an address it refuses,
 * `"resolve"` when its host is a name the client must resolve itself (see
 * {@linkcode checkedAddresses}): every name but an allowed one, and every
 * name when the policy has a `resolve`, which replaces the system resolver
 * for an allowed host too; `undefined` when it may be connected to as it is
 * (an allowed address, or an allowed host the system resolves).
 */
export function urlRefusal(
  policy: NetworkPolicy,
  url: URL,
): BlockedFailure | "resolve" | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const ip = parseIp(host);
  if (ip === undefined) {
    return hostAllowed(policy, host) && policy.resolve === undefined ? undefined : "resolve";
  }
  const refused = addressRefusal(policy, ip);
  return refused === undefined ? undefined : blocked(host, formatIp(ip), refused);
}

function blocked(host: string, address: string, refused: AddressRule): BlockedFailure {
  return new BlockedFailure(host, address, refused.rule, refused.range);
}

/**
 * Resolves `hostname` (with the policy's `resolve`, else `system`) and
 * returns the answers the policy allows, in the resolver's order; a
 * {@linkcode BlockedFailure} naming the first answer when it allows none.
 * Every answer for a host `allow` names is allowed, unchecked, as the host
 * is. An answer that is not an IP address is the resolver's error.
 */
export async function checkedAddresses(
  policy: NetworkPolicy,
  hostname: string,
  system: (hostname: string) => Promise<readonly string[]>,
): Promise<string[]> {
  const answers = await (policy.resolve ?? system)(hostname);
  if (!Array.isArray(answers)) {
    throw new RuntimeLimitError(
      `Invalid networkPolicy.resolve: expected a list of IP addresses for ${hostname}`,
    );
  }
  if (answers.length === 0) {
    throw Object.assign(new Error(`No address found for ${hostname}`), { code: "ENOTFOUND" });
  }
  const allowed: string[] = [];
  const trusted = hostAllowed(policy, hostname);
  let first: BlockedFailure | undefined;
  for (const answer of answers) {
    const ip = typeof answer === "string" ? parseIp(answer) : undefined;
    if (ip === undefined) {
      throw new RuntimeLimitError(
        `Invalid networkPolicy.resolve: ${JSON.stringify(answer)} (for ${hostname}) ` +
          "is not an IP address",
      );
    }
    const refused = trusted ? undefined : addressRefusal(policy, ip);
    if (refused === undefined) allowed.push(formatIp(ip));
    else first ??= blocked(hostname, formatIp(ip), refused);
  }
  if (allowed.length === 0) throw first;
  return allowed;
}

/**
 * The policy's check of a URL an answer that makes no connection stands
 * for (a cache's hit, `Pool.checkDestination`), as a connection to it is
 * checked: an address as it is, an allowed host name as it is, any other
 * name resolved with the policy's `resolve`, else `lookup` (the resolver
 * the pool's connections use), and refused when the policy allows none of
 * its answers. `abort` ends the lookup.
 */
export function destinationCheck(
  policy: NetworkPolicy,
  lookup: (hostname: string, signal: AbortSignal) => Promise<readonly string[]>,
): (url: string, abort: Abort) => Promise<void> | undefined {
  return (url, abort) => {
    let refused: BlockedFailure | "resolve" | undefined;
    let hostname: string;
    try {
      const parsed = new URL(url);
      hostname = parsed.hostname;
      // A host `allow` names passes without a lookup: its answers are never checked.
      if (hostAllowed(policy, hostname)) return undefined;
      refused = urlRefusal(policy, parsed);
    } catch (error) {
      return Promise.reject(error);
    }
    if (refused === undefined) return undefined;
    if (refused instanceof BlockedFailure) return Promise.reject(refused);
    const controller = new AbortController();
    const stop = () => controller.abort();
    abort.onAbort(stop);
    return checkedAddresses(policy, hostname, (name) => lookup(name, controller.signal))
      .then(() => {}).finally(() => abort.offAbort(stop));
  };
}

/**
 * `transport` with the policy's check of a URL whose host is an address:
 * refused before any connection (a host name is checked as its
 * connection is made, by the runtime's pool).
 */
export function guardedTransport(policy: NetworkPolicy, transport: Transport): Transport {
  return (wire, abort) => {
    const refused = urlRefusal(policy, new URL(wire.url));
    return refused instanceof BlockedFailure ? Promise.reject(refused) : transport(wire, abort);
  };
}
