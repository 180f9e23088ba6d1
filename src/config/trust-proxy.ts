import { isIP } from 'node:net';

/**
 * Which proxies in front of the app are believed when they name the client in `X-Forwarded-For`:
 * Express's `trust proxy`. `false`: none (the client is the connection's address); a number: that
 * many hops in front of the app; a list: the proxies' addresses, subnets or Express's names for
 * ranges (`loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_HOPS = 32;

export const TRUST_PROXY_MESSAGE =
  'must be a hop count (1 to 32), or a comma-separated list of addresses, subnets (10.0.0.0/8, fd00::/8) ' +
  'or loopback, linklocal, uniquelocal';

/** An address, a subnet in CIDR (`10.0.0.0/8`) or with a netmask (`10.0.0.0/255.0.0.0`), or a named range. */
function isTrustItem(item: string): boolean {
  if (NAMED_RANGES.includes(item)) return true;
  const [address, range, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4;
}

/**
 * Reads TRUST_PROXY. Unset or empty: trust nothing. `true` (every hop, so any client may name
 * itself) is refused: name the proxies or count them.
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
  const wrong = items.find((item) => !isTrustItem(item));
  if (wrong !== undefined) {
    const hint = wrong.toLowerCase() === 'true' ? ' (true would let any client name itself)' : '';
    return { problem: `TRUST_PROXY: ${TRUST_PROXY_MESSAGE}; "${wrong.slice(0, 64)}" is none of them${hint}` };
  }
  return { value: items };
}
