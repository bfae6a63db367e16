import { chuteStateOfServices, serviceStates } from '../chutes/services.ts';
import { CHUTE_STATES } from '../chutes/state.ts';
import { measureChutes } from '../info/chute-usage.ts';
import { type Collector, counter, gauge, type MetricFamily, type Sample, sample } from './samples.ts';

/*
 * The chutes: each one's state, as `GET /api/v1/chutes` answers it, and what its running container
 * uses, as telemetry reports it (the engine's stats), under cAdvisor's names and labelled with the
 * chute's name and its service instead of the container's name.
 */

const CHUTE_STATE = gauge('chutebox_chute_state', "1 for the chute's state, 0 for each other state a chute can be in", ['chute', 'state']);
const CPU = counter('container_cpu_usage_seconds_total', "CPU time the chute's container used, in seconds", ['chute', 'service']);
const WORKING_SET = gauge(
  'container_memory_working_set_bytes',
  "Memory the chute's container uses, less the page cache it could drop (as docker stats counts it), in bytes",
  ['chute', 'service'],
);
const RECEIVED = counter('container_network_receive_bytes_total', "Bytes the chute's container received, over all its interfaces", ['chute', 'service']);
const SENT = counter('container_network_transmit_bytes_total', "Bytes the chute's container sent, over all its interfaces", ['chute', 'service']);

/** Every family of this module. */
export const CHUTE_FAMILIES: readonly MetricFamily[] = [CHUTE_STATE, CPU, WORKING_SET, RECEIVED, SENT];

/** Each installed chute's state, and what each running chute container uses (none for a container whose stats the engine did not give). */
export const chuteMetrics: Collector = async ({ device, chutes }) => {
  const containers = await device.containers();
  const [installed, measured] = await Promise.all([chutes, measureChutes(device, containers ?? [])]);
  const states = installed.flatMap((chute) => {
    const state = chuteStateOfServices(serviceStates(containers, chute.name, chute.record));
    return CHUTE_STATES.map((each) => sample(CHUTE_STATE, { chute: chute.name, state: each }, Number(each === state)));
  });
  const used = measured
    .filter((chute) => chute.measured)
    .map((chute) => chute.usage)
    .flatMap((chute): Sample[] => [
      sample(CPU, { chute: chute.name, service: chute.service }, chute.cpu.total_usage_ns / 1e9),
      sample(WORKING_SET, { chute: chute.name, service: chute.service }, chute.memory.usage),
      sample(RECEIVED, { chute: chute.name, service: chute.service }, chute.network.rx_bytes),
      sample(SENT, { chute: chute.name, service: chute.service }, chute.network.tx_bytes),
    ]);
  return [...states, ...used];
};
