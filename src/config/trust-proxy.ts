import { BlockList, isIP } from 'node:net';

/**
 * Which proxies in front of the app are believed when they name the client in `X-Forwarded-For`:
 * Express's `trust proxy`. `false`: none (the client is the connection's address); a number: that
 * many hops in front of the app; a list: the proxies' addresses, subnets or Express's names for
 * ranges (`loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_HOPS = 32;

/**
 * The widest subnet that names proxies, as a prefix length: that of the widest private range
 * (10.0.0.0/8, fc00::/7). A wider one takes in the clients too (0.0.0.0/0, ::/0, two halves),
 * and any of them could name itself, as with `true`.
 */
const WIDEST_PREFIX = { 4: 8, 6: 7 } as const;

/** Express reads a subnet of IPv4-mapped addresses (::ffff:0:0/96) as the IPv4 subnet it maps. */
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

export const TRUST_PROXY_MESSAGE =
  'must be a hop count (1 to 32), or a comma-separated list of addresses, subnets (10.0.0.0/8, fd00::/8) ' +
  'or loopback, linklocal, uniquelocal';

type TrustItem = 'named range' | { family: 4 | 6; prefix: number };

/**
 * A named range, or an address or subnet in CIDR (`10.0.0.0/8`) or with a netmask
 * (`10.0.0.0/255.0.0.0`) as the family and prefix length Express trusts; undefined when it is none.
 */
function readTrustItem(item: string): TrustItem | undefined {
  if (NAMED_RANGES.includes(item)) return 'named range';
  const [address, range, ...rest] = item.split('/');
  const family = isIP(address);
  if ((family !== 4 && family !== 6) || rest.length > 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  const prefix =
    range === undefined
      ? bits
      : /^\d{1,3}$/.test(range)
        ? Number(range)
        : family === 4 && isIP(range) === 4
          ? netmaskPrefix(range)
          : undefined;
  if (prefix === undefined || prefix > bits) return undefined;
  return family === 6 && IPV4_MAPPED.check(address, 'ipv6') ? { family: 4, prefix: prefix - 96 } : { family, prefix };
}

/** 255.255.0.0 is 16; undefined when the ones are not one run from the left (Express refuses those). */
function netmaskPrefix(netmask: string): number | undefined {
  const bits = netmask
    .split('.')
    .map((octet) => Number(octet).toString(2).padStart(8, '0'))
    .join('');
  return /^1*0*$/.test(bits) ? bits.replace(/0+$/, '').length : undefined;
}

/**
 * Reads TRUST_PROXY. Unset or empty: trust nothing. `true` (every hop, so any client may name
 * itself) is refused, and so is a subnet wide enough to take in the clients: name the proxies or
 * count them.
 */
export function parseTrustProxy(text: string | undefined): { value: TrustProxy } | { problem: string } {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') return { value: false };
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    return hops >= 1 && hops <= MAX_HOPS ? { value: hops } : { problem: `TRUST_PROXY: ${TRUST_PROXY_MESSAGE}` };
  }
  const items = trimmed
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  const read = items.map((item) => ({ item, trusted: readTrustItem(item) }));
  const wrong = read.find(({ trusted }) => trusted === undefined)?.item;
  if (wrong !== undefined) {
    const hint = wrong.toLowerCase() === 'true' ? ' (true would let any client name itself)' : '';
    return { problem: `TRUST_PROXY: ${TRUST_PROXY_MESSAGE}; "${wrong.slice(0, 64)}" is none of them${hint}` };
  }
  const wide = read.find(
    ({ trusted }) =>
      trusted !== undefined && trusted !== 'named range' && trusted.prefix < WIDEST_PREFIX[trusted.family],
  )?.item;
  if (wide !== undefined) {
    return {
      problem:
        `TRUST_PROXY: ${TRUST_PROXY_MESSAGE}; "${wide.slice(0, 64)}" is wider than any proxy's range ` +
        '(/8 at most in IPv4, /7 in IPv6: a wider one would let any client name itself)',
    };
  }
  return { value: items };
}
