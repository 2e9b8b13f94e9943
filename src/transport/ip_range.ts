// IP addresses and ranges in NO_PROXY-style lists: `10.0.0.0/8`, `::1`,
// `fd00::/8`. An address is compared by value, so every spelling of one
// IPv6 address names it, and a range names every address it holds.

/** An IP address as a number, with the bit count of its family (32 or 128). */
export interface IpValue {
  readonly bits: 32 | 128;
  readonly value: bigint;
}

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/**
 * The value of `text` when it is an IP address: IPv4 in dotted-quad form
 * (no leading zeros), or IPv6 without brackets; else `undefined`.
 */
export function parseIp(text: string): IpValue | undefined {
  if (IPV4.test(text)) {
    const value = text.split(".").reduce((sum, octet) => (sum << 8n) | BigInt(octet), 0n);
    return { bits: 32, value };
  }
  if (!/^[0-9a-f:.]+$/i.test(text) || !text.includes(":")) return undefined;
  // The URL parser validates it and writes it canonical: hex groups, at most one "::".
  const host = URL.parse(`http://[${text}]/`)?.hostname.slice(1, -1);
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

/**
 * True when `entry` names `ip`: the same address, or a range (`address/bits`)
 * holding it. An entry that is neither names no address.
 */
export function inIpRange(ip: IpValue, entry: string): boolean {
  const slash = entry.indexOf("/");
  const network = parseIp(slash === -1 ? entry : entry.slice(0, slash));
  if (network === undefined || network.bits !== ip.bits) return false;
  const length = slash === -1 ? network.bits : Number(entry.slice(slash + 1));
  if (!/^\d{1,3}$/.test(slash === -1 ? "0" : entry.slice(slash + 1)) || length > network.bits) {
    return false;
  }
  const shift = BigInt(network.bits - length);
  return ip.value >> shift === network.value >> shift;
}
