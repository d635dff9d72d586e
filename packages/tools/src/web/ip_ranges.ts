import { isIPv4, isIPv6 } from 'node:net';

/** The bytes of an IP address: 4 for IPv4, 16 for IPv6. */
export type IpBytes = readonly number[];

/**
 * The bytes of a canonical IPv4 (`10.0.0.1`) or IPv6 (`::ffff:7f00:1`, `fe80::1%eth0`, with or
 * without brackets) address; undefined for anything else, host names included.
 *
 * Contract: pure, never throws. Odd IPv4 spellings (`0x7f.1`, `2130706433`) are not addresses
 * here: a URL's host is read with the WHATWG parser first, which writes them canonically.
 */
export function ip_bytes(text: string): IpBytes | undefined {
  let address = text.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  if (isIPv4(address)) return address.split('.').map(Number);
  if (!isIPv6(address)) return undefined;
  let tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    tail = (dotted[1] as string).split('.').map(Number);
    address = `${address.slice(0, dotted.index)}:0:0`;
  }
  const halves = address.split('::');
  const groups = (part: string | undefined) =>
    part === undefined || part === ''
      ? []
      : part.split(':').map((group) => Number.parseInt(group, 16));
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  const all = halves.length === 2 ? [...head, ...new Array(missing).fill(0), ...rest] : head;
  if (all.length !== 8) return undefined;
  const bytes = all.flatMap((group) => [group >> 8, group & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

interface Range {
  prefix: IpBytes;
  bits: number;
  name: string;
}

function range(prefix: number[], bits: number, name: string): Range {
  return { prefix, bits, name };
}

function v6(groups: number[]): number[] {
  const padded = [...groups, ...new Array(8 - groups.length).fill(0)];
  return padded.flatMap((group) => [group >> 8, group & 0xff]);
}

/** IPv4 ranges no fetch may reach unless its host is allowed: not the public internet. */
const V4_REFUSED: readonly Range[] = [
  range([0, 0, 0, 0], 8, '"this network" (0.0.0.0/8)'),
  range([10, 0, 0, 0], 8, 'private (10.0.0.0/8)'),
  range([100, 64, 0, 0], 10, 'carrier-grade NAT (100.64.0.0/10)'),
  range([127, 0, 0, 0], 8, 'loopback (127.0.0.0/8)'),
  range([169, 254, 0, 0], 16, 'link-local, cloud metadata (169.254.0.0/16)'),
  range([172, 16, 0, 0], 12, 'private (172.16.0.0/12)'),
  range([192, 0, 0, 0], 24, 'IETF protocol assignments (192.0.0.0/24)'),
  range([192, 0, 2, 0], 24, 'documentation (192.0.2.0/24)'),
  range([192, 88, 99, 0], 24, '6to4 relay (192.88.99.0/24)'),
  range([192, 168, 0, 0], 16, 'private (192.168.0.0/16)'),
  range([198, 18, 0, 0], 15, 'benchmarking (198.18.0.0/15)'),
  range([198, 51, 100, 0], 24, 'documentation (198.51.100.0/24)'),
  range([203, 0, 113, 0], 24, 'documentation (203.0.113.0/24)'),
  range([224, 0, 0, 0], 4, 'multicast (224.0.0.0/4)'),
  range([240, 0, 0, 0], 4, 'reserved or broadcast (240.0.0.0/4)'),
];

/** IPv6 ranges refused outright (those embedding an IPv4 address are judged by that address). */
const V6_REFUSED: readonly Range[] = [
  range(v6([]), 128, 'unspecified (::)'),
  range(v6([0, 0, 0, 0, 0, 0, 0, 1]), 128, 'loopback (::1)'),
  range(v6([]), 96, 'IPv4-compatible (::/96)'),
  range(v6([0x64, 0xff9b, 1]), 48, 'local NAT64 (64:ff9b:1::/48)'),
  range(v6([0x100]), 64, 'discard (100::/64)'),
  range(v6([0x2001, 0]), 32, 'Teredo (2001::/32)'),
  range(v6([0x2001, 0xdb8]), 32, 'documentation (2001:db8::/32)'),
  range(v6([0xfc00]), 7, 'unique local (fc00::/7)'),
  range(v6([0xfe80]), 10, 'link-local (fe80::/10)'),
  range(v6([0xfec0]), 10, 'site-local (fec0::/10)'),
  range(v6([0xff00]), 8, 'multicast (ff00::/8)'),
];

function in_range(bytes: IpBytes, { prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    const index = bit / 8;
    if (((bytes[index] as number) & mask) !== ((prefix[index] as number) & mask)) return false;
  }
  return true;
}

/** The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, NAT64, 6to4), if any. */
function embedded_v4(bytes: IpBytes): IpBytes | undefined {
  const starts = (groups: number[], length: number) =>
    v6(groups)
      .slice(0, length)
      .every((byte, index) => bytes[index] === byte);
  if (starts([0, 0, 0, 0, 0, 0xffff], 12)) return bytes.slice(12, 16);
  if (starts([0x64, 0xff9b, 0, 0, 0, 0], 12)) return bytes.slice(12, 16);
  if (starts([0x2002], 2)) return bytes.slice(2, 6);
  return undefined;
}

/**
 * Why a fetch may not connect to `address`: the name of the range it is in (`loopback
 * (127.0.0.0/8)`), or undefined for a public address. Something that is no IP address at all is
 * refused too.
 *
 * Contract: pure, never throws. IPv4-mapped (`::ffff:127.0.0.1`, `::ffff:7f00:1`), NAT64 and 6to4
 * forms are judged by the IPv4 address they carry.
 */
export function refused_range(address: string): string | undefined {
  const bytes = ip_bytes(address);
  if (bytes === undefined) return 'not an IP address';
  if (bytes.length === 4) return V4_REFUSED.find((entry) => in_range(bytes, entry))?.name;
  const inner = embedded_v4(bytes);
  if (inner !== undefined) {
    const name = V4_REFUSED.find((entry) => in_range(inner, entry))?.name;
    return name === undefined ? undefined : `${name}, written as IPv6`;
  }
  return V6_REFUSED.find((entry) => in_range(bytes, entry))?.name;
}
