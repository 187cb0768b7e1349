import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard (PRODUCT.md §9): a webhook may not reach loopback, private,
 * link-local, unspecified (or other non-public: multicast, carrier-grade
 * NAT, reserved) addresses unless WEBHOOK_ALLOW_PRIVATE=1. The ranges come
 * from ipaddr.js (the range table proxy-addr uses), not a hand-kept list.
 */

const PUBLIC_RANGES = new Set(['unicast']);

/** true when `address` (an IP literal) is not a public unicast address. IPv4-mapped IPv6 is judged as its IPv4. */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return !PUBLIC_RANGES.has(ip.range());
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Why a webhook URL is refused at create/update, or null when it is acceptable. Resolves the name. */
export async function refuseUrl(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be http or https';
  if (url.username || url.password) return 'url must not carry credentials';
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (net.isIP(host)) return isForbiddenAddress(host) ? `url resolves to a non-public address (${host})` : null;
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, a) => (err ? reject(err) : resolve(a))));
  } catch {
    return `url host ${host} does not resolve`;
  }
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  return bad ? `url resolves to a non-public address (${bad.address})` : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that refuses non-public results: the check
 * happens on the address the socket is about to connect to, so a name that
 * resolved to a public address at creation and to 127.0.0.1 now (DNS
 * rebinding) is refused.
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, options.all ? [] : '', 0);
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) {
      const e: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a non-public address (${bad.address})`);
      e.code = 'EWEBHOOKPRIVATE';
      return callback(e, options.all ? [] : '', 0);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
