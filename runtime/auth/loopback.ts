import { BlockList } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/**
 * Whether a client address is this machine: 127.0.0.0/8, ::1, or an IPv4-mapped 127.x address.
 *
 * @example
 * isLoopback('::ffff:127.0.0.1') // true
 * isLoopback('192.168.1.20')     // false
 */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  let answer = known.get(address);
  if (answer === undefined) {
    answer = check(address);
    if (known.size >= KNOWN_ADDRESSES) known.clear();
    known.set(address, answer);
  }
  return answer;
}

/** Addresses already checked: a router's clients are few, and each asks many times a second. */
const known = new Map<string, boolean>();
const KNOWN_ADDRESSES = 256;

function check(address: string): boolean {
  const family = address.includes(':') ? 'ipv6' : 'ipv4';
  try {
    return loopback.check(address, family);
  } catch {
    return false;
  }
}
