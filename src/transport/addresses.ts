// IP addresses and the ranges a network policy refuses: pure, no I/O.
// The special-purpose ranges follow IANA's IPv4 and IPv6 Special-Purpose
// Address Registries (the entries they mark not globally reachable), the
// multicast ranges, and the IPv6 forms that embed an IPv4 address (mapped,
// NAT64, 6to4), whose IPv4 address is checked in turn. An address is
// compared by value, so every spelling of one names it: the URL parser
// writes a host's IPv4 forms (`0x7f.1`, `2130706433`, `127.1`) as a dotted
// quad and an IPv6 one canonical before this sees them. proxy.ts reads
// NO_PROXY's addresses and ranges with the same parser.

/** An IP address as a number, with the bit count of its family (32 or 128). */
export interface IpValue {
  readonly bits: 32 | 128;
  readonly value: bigint;
}

/** A range of addresses: its first address and its prefix length. */
export interface IpRange {
  readonly network: IpValue;
  readonly prefix: number;
}

/** Why an address is refused: the rule's name and the range it is in. */
export interface AddressRule {
  /** `loopback`, `private`, `link-local`…, or `deny` for a range the policy names. */
  readonly rule: string;
  /** The range, as `127.0.0.0/8`; for an embedded IPv4 address, the IPv6 range first. */
  readonly range: string;
}

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/**
 * The value of `text` when it is an IP address: IPv4 in dotted-quad form
 * (no leading zeros), or IPv6 with or without brackets; else `undefined`.
 */
export function parseIp(text: string): IpValue | undefined {
  if (IPV4.test(text)) {
    const value = text.split(".").reduce((sum, octet) => (sum << 8n) | BigInt(octet), 0n);
    return { bits: 32, value };
  }
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!/^[0-9a-f:.]+$/i.test(bare) || !bare.includes(":")) return undefined;
  // The URL parser validates it and writes it canonical: hex groups, at most one "::".
  const host = URL.parse(`http://[${bare}]/`)?.hostname.slice(1, -1);
  if (host === undefined) return undefined;
  const [head = "", tail] = host.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  const value = [...left, ...zeros, ...right].reduce(
    (sum, group) => (sum << 16n) | BigInt(`0x${group}`),
    0n,
  );
  return { bits: 128, value };
}

/** `address/prefix` (or a lone address: the whole length), else `undefined`. */
export function parseRange(text: string): IpRange | undefined {
  const slash = text.indexOf("/");
  const network = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (network === undefined) return undefined;
  if (slash === -1) return { network, prefix: network.bits };
  const digits = text.slice(slash + 1);
  const prefix = Number(digits);
  if (!/^\d{1,3}$/.test(digits) || prefix > network.bits) return undefined;
  return { network, prefix };
}

/** True when `range` holds `ip` (of the same family). */
export function inRange(ip: IpValue, range: IpRange): boolean {
  if (range.network.bits !== ip.bits) return false;
  const shift = BigInt(ip.bits - range.prefix);
  return ip.value >> shift === range.network.value >> shift;
}

/**
 * True when `entry` names `ip`: the same address, or a range (`address/bits`)
 * holding it. An entry that is neither names no address.
 */
export function inIpRange(ip: IpValue, entry: string): boolean {
  const range = parseRange(entry);
  return range !== undefined && inRange(ip, range);
}

/** The address as text: a dotted quad, or IPv6 as the URL parser writes it (no brackets). */
export function formatIp(ip: IpValue): string {
  if (ip.bits === 32) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 255n)).join(".");
  }
  const groups = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) {
    groups.push(((ip.value >> shift) & 0xffffn).toString(16));
  }
  return URL.parse(`http://[${groups.join(":")}]/`)!.hostname.slice(1, -1);
}

type Entry = readonly [range: string, rule: string];

// IANA's IPv4 Special-Purpose Address Registry, the entries not globally
// reachable (192.88.99.0/24, the deprecated 6to4 relay anycast, too), and
// multicast. 192.0.0.9 and 192.0.0.10 (in 192.0.0.0/24) are globally reachable.
const IPV4_GLOBAL: readonly string[] = ["192.0.0.9/32", "192.0.0.10/32"];
const IPV4_SPECIAL: readonly Entry[] = [
  ["0.0.0.0/8", "this-network"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade-nat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "ietf-protocol"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
];

// The IPv6 forms whose low or middle bits are an IPv4 address, checked in turn.
const EMBEDDED: readonly (readonly [range: string, shift: bigint])[] = [
  ["::ffff:0:0/96", 0n], // IPv4-mapped
  ["64:ff9b::/96", 0n], // NAT64, the well-known prefix
  ["2002::/16", 80n], // 6to4
];

// IANA's IPv6 Special-Purpose Address Registry, the entries not globally
// reachable, with the globally reachable ones inside 2001::/23 first; the
// deprecated IPv4-compatible (::/96) and site-local (fec0::/10) forms; and
// multicast. Whatever else lies outside 2000::/3, the only global unicast
// range allocated, is refused as reserved.
const IPV6_GLOBAL: readonly string[] = [
  "2001:1::1/128",
  "2001:1::2/128",
  "2001:1::3/128",
  "2001:3::/32",
  "2001:4:112::/48",
  "2001:20::/28",
  "2001:30::/28",
];
const IPV6_SPECIAL: readonly Entry[] = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::/96", "ipv4-compatible"],
  ["64:ff9b:1::/48", "local-nat64"],
  ["100::/64", "discard-only"],
  ["100:0:0:1::/64", "dummy"],
  ["2001::/23", "ietf-protocol"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "srv6-sid"],
  ["fc00::/7", "unique-local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local"],
  ["ff00::/8", "multicast"],
];

const ranges = (entries: readonly string[]) =>
  entries.map((text) => [text, parseRange(text)!] as const);
const special = (entries: readonly Entry[]) =>
  entries.map(([text, rule]) => ({ rule, range: text, parsed: parseRange(text)! }));
// Parsed on the policy's first check, not when the module loads (every process that imports
// mod.ts loads it): measured on Deno 2.9.6, `performance.now()` around `await import()` of this
// file in a `deno run` script, six runs: 1.8-5.0 ms with the tables parsed at load, 0.23-0.25 ms
// lazy (link.ts, parsed nothing at load: 0.26-0.30 ms).
let tables: ReturnType<typeof parseTables> | undefined;
const parseTables = () => ({
  v4Global: ranges(IPV4_GLOBAL),
  v4Special: special(IPV4_SPECIAL),
  v6Global: ranges(IPV6_GLOBAL),
  v6Special: special(IPV6_SPECIAL),
  v6Embedded: EMBEDDED.map(([text, shift]) => [text, parseRange(text)!, shift] as const),
  globalUnicast: parseRange("2000::/3")!,
});

/**
 * The special-purpose range `ip` is in, as the rule that refuses it, or
 * `undefined` for a globally reachable address. An IPv6 address that embeds
 * an IPv4 one (`::ffff:127.0.0.1`, `64:ff9b::a00:1`, `2002:7f00:1::`) is
 * refused for its IPv4 address's rule.
 */
export function specialRange(ip: IpValue): AddressRule | undefined {
  const { v4Global, v4Special, v6Global, v6Special, v6Embedded, globalUnicast } = tables ??=
    parseTables();
  if (ip.bits === 32) {
    if (v4Global.some(([, range]) => inRange(ip, range))) return undefined;
    const found = v4Special.find(({ parsed }) => inRange(ip, parsed));
    return found === undefined ? undefined : { rule: found.rule, range: found.range };
  }
  for (const [text, range, shift] of v6Embedded) {
    if (!inRange(ip, range)) continue;
    const inner = specialRange({ bits: 32, value: (ip.value >> shift) & 0xffffffffn });
    return inner === undefined ? undefined : { rule: inner.rule, range: `${text}, ${inner.range}` };
  }
  if (v6Global.some(([, range]) => inRange(ip, range))) return undefined;
  const found = v6Special.find(({ parsed }) => inRange(ip, parsed));
  if (found !== undefined) return { rule: found.rule, range: found.range };
  return inRange(ip, globalUnicast) ? undefined : { rule: "reserved", range: "outside 2000::/3" };
}
