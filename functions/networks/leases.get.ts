import { reusingLast } from '../core/reusing-last.ts';
import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { parseLeases } from '../parsers/dnsmasq-leases.ts';
import { requestedNetwork } from '../chutes/lookup.ts';
import { LeaseListSchema, type LeaseList, NetworkRequestSchema } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network/leases', "The DHCP leases of a chute network's dnsmasq");
export const request = NetworkRequestSchema;
export const response = LeaseListSchema;

/**
 * The network's dnsmasq lease file, one record per lease; an empty list while dnsmasq has written
 * no file yet.
 *
 * @example
 * await handle(input, device) // [{ expires: '1700003600', mac_addr: '5c:f7:e6:1c:36:f7', ip_addr: '192.168.128.23', hostname: 'phone', client_id: '01:5c:f7:e6:1c:36:f7' }]
 */
export const handle: Handler<LeaseList> = async (input, device) => {
  const network = await requestedNetwork(input, device, ['access-point', 'vlan'], 'read DHCP leases');
  return leasesOf(device, (await device.network(network.target).leases()) ?? '');
};

/** The lease file's records, parsed again only when the file changed. */
const leasesOf = reusingLast(parseLeases);
