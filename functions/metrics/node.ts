import { parseLoadavg } from '../parsers/loadavg.ts';
import { parseMeminfo } from '../parsers/meminfo.ts';
import { type InterfaceCounters, parseNetDev } from '../parsers/netdev.ts';
import { type CpuTimes, parseStat } from '../parsers/stat.ts';
import { type Collector, counter, gauge, type MetricFamily, type Sample, sample } from './samples.ts';

/*
 * The system, under the names of Prometheus' node exporter, from the files `GET /api/v1/info/telemetry`
 * reads (/proc/stat, /proc/loadavg, /proc/meminfo, /proc/net/dev) with the same parsers. A file the
 * device does not have gives no sample.
 */

const BOOT_TIME = gauge('node_boot_time_seconds', 'When the system booted, in seconds since the epoch', []);
const TIME = gauge('node_time_seconds', "The device's clock, in seconds since the epoch", []);
const LOADS = [1, 5, 15].map((minutes) => gauge(`node_load${minutes}`, `Load average over ${minutes} minute${minutes === 1 ? '' : 's'}`, []));
const CPU_SECONDS = counter('node_cpu_seconds_total', 'Time each CPU spent in each mode, in seconds', ['cpu', 'mode']);

/** The fields of /proc/meminfo given in kB, which node exporter names `node_memory_<field>_bytes`. */
const MEMORY_FIELDS = ['MemTotal', 'MemFree', 'MemAvailable', 'Buffers', 'Cached', 'SwapTotal', 'SwapFree'] as const;
const MEMORY = MEMORY_FIELDS.map((field) => ({ field, family: gauge(`node_memory_${field}_bytes`, `${field} of /proc/meminfo, in bytes`, []) }));

/** The counters of /proc/net/dev that node exporter names `node_network_<direction>_<counter>_total{device}`. */
const NETWORK: readonly { family: MetricFamily<'device'>; counter: keyof Omit<InterfaceCounters, 'name'> }[] = [
  { family: counter('node_network_receive_bytes_total', 'Bytes the interface received', ['device']), counter: 'bytes_recv' },
  { family: counter('node_network_transmit_bytes_total', 'Bytes the interface sent', ['device']), counter: 'bytes_sent' },
  { family: counter('node_network_receive_packets_total', 'Packets the interface received', ['device']), counter: 'packets_recv' },
  { family: counter('node_network_transmit_packets_total', 'Packets the interface sent', ['device']), counter: 'packets_sent' },
  { family: counter('node_network_receive_errs_total', 'Receive errors of the interface', ['device']), counter: 'errin' },
  { family: counter('node_network_transmit_errs_total', 'Transmit errors of the interface', ['device']), counter: 'errout' },
  { family: counter('node_network_receive_drop_total', 'Received packets the interface dropped', ['device']), counter: 'dropin' },
  { family: counter('node_network_transmit_drop_total', 'Packets to send that the interface dropped', ['device']), counter: 'dropout' },
];

/** Every family of this module. */
export const NODE_FAMILIES: readonly MetricFamily[] = [
  BOOT_TIME,
  TIME,
  ...LOADS,
  CPU_SECONDS,
  ...MEMORY.map((memory) => memory.family),
  ...NETWORK.map((network) => network.family),
];

/** The system's clock, boot time, CPU times, load, memory and network counters. */
export const nodeMetrics: Collector = async ({ device }) => {
  const [stat, loadavg, meminfo, netdev] = await Promise.all(
    ['/proc/stat', '/proc/loadavg', '/proc/meminfo', '/proc/net/dev'].map((file) => device.readFile(file)),
  );
  return [
    sample(TIME, {}, device.now() / 1000),
    ...statSamples(stat ?? ''),
    ...loadSamples(loadavg ?? ''),
    ...memorySamples(meminfo ?? ''),
    ...parseNetDev(netdev ?? '').flatMap((counters) => NETWORK.map(({ family, counter }) => sample(family, { device: counters.name }, counters[counter]))),
  ];
};

function statSamples(text: string): Sample[] {
  const kernel = parseStat(text);
  const samples = kernel.bootTime === null ? [] : [sample(BOOT_TIME, {}, kernel.bootTime)];
  kernel.cpus.forEach((times, cpu) => {
    for (const [mode, seconds] of Object.entries(times) as [keyof CpuTimes, number][]) samples.push(sample(CPU_SECONDS, { cpu: String(cpu), mode }, seconds));
  });
  return samples;
}

function loadSamples(text: string): Sample[] {
  const loads = parseLoadavg(text);
  return loads === null ? [] : LOADS.map((family, i) => sample(family, {}, loads[i]!));
}

function memorySamples(text: string): Sample[] {
  const memory = parseMeminfo(text);
  return MEMORY.flatMap(({ field, family }) => (memory[field] === undefined ? [] : [sample(family, {}, memory[field])]));
}
