import * as z from 'zod/mini';

/*
 * The requests and responses of the /api/v1/info endpoints (ParaDrop's shapes; units are bytes and
 * seconds). Objects are strict, so a handler that adds or renames a field fails its schema test.
 */

/** The request of an endpoint that takes no path parameters, no query and no body. */
export const NoInputSchema = z.object({ params: z.object({}), body: z.undefined() });

/** GET /api/v1/info/features: feature strings, e.g. `["hostapd-control", "docker"]`. */
export const FeatureListSchema = z.array(z.string());
export type FeatureList = z.infer<typeof FeatureListSchema>;

/** GET /api/v1/info/environment: the daemon's environment variables, secrets as "[redacted]". */
export const EnvironmentSchema = z.record(z.string(), z.string());
export type Environment = z.infer<typeof EnvironmentSchema>;

/** A text the device may not have (null): a DMI field, the CPU's machine word. */
const MaybeTextSchema = z.nullable(z.string());

/** A hexadecimal id such as `0x168c`, or null when the bus has none. */
const HexIdSchema = z.nullable(z.string().check(z.regex(/^0x[0-9a-f]{4,}$/)));

/** One radio of /sys/class/ieee80211. */
export const WifiDeviceSchema = z.strictObject({
  /** `<subsystem>-wifi-<n>`, e.g. `pci-wifi-0`. */
  id: z.string(),
  /** `<subsystem>/<device>`, e.g. `pci/0000:04:00.0`, `usb/1-1:1.0`, `platform/18100000.wmac`. */
  slot: z.string(),
  macAddr: z.string(),
  vendorId: HexIdSchema,
  deviceId: HexIdSchema,
});
export type WifiDevice = z.infer<typeof WifiDeviceSchema>;

/** GET /api/v1/info/hardware. */
export const HardwareSchema = z.strictObject({
  vendor: MaybeTextSchema,
  board: MaybeTextSchema,
  /** The machine word of `uname`, e.g. `x86_64`, `mips`, `armv7l`. */
  cpu: MaybeTextSchema,
  /** Total RAM in bytes. */
  memory: z.nullable(z.number()),
  wifi: z.array(WifiDeviceSchema),
});
export type Hardware = z.infer<typeof HardwareSchema>;

/** GET /api/v1/info/software. */
export const SoftwareSchema = z.strictObject({
  biosVendor: MaybeTextSchema,
  biosVersion: MaybeTextSchema,
  biosDate: MaybeTextSchema,
  osVersion: MaybeTextSchema,
  /** `<sysname>-<release>`, e.g. `Linux-6.1.0-18-amd64`. */
  kernelVersion: z.string(),
  /** The chutebox package version. */
  pdVersion: z.string(),
  /** Whole seconds since boot. */
  uptime: z.nullable(z.int()),
});
export type Software = z.infer<typeof SoftwareSchema>;

/** Seconds a CPU spent in each state since boot. */
export const CpuTimesSchema = z.strictObject({
  user: z.number(),
  nice: z.number(),
  system: z.number(),
  idle: z.number(),
  iowait: z.number(),
  irq: z.number(),
  softirq: z.number(),
  steal: z.number(),
});

const IoCounterShape = {
  bytes_sent: z.number(),
  bytes_recv: z.number(),
  packets_sent: z.number(),
  packets_recv: z.number(),
  errin: z.number(),
  errout: z.number(),
  dropin: z.number(),
  dropout: z.number(),
};

/** Network counters since boot, summed over interfaces. */
export const IoCountersSchema = z.strictObject(IoCounterShape);

/** One interface's counters since boot. */
export const InterfaceCountersSchema = z.strictObject({ name: z.string(), ...IoCounterShape });

/** Space on one mounted filesystem, in bytes; `percent` is used / (used + free available to users). */
export const DiskUsageSchema = z.strictObject({
  mountpoint: z.string(),
  device: z.string(),
  fstype: z.string(),
  total: z.number(),
  used: z.number(),
  free: z.number(),
  percent: z.number(),
});

/** One chute container's resource use. */
export const ChuteUsageSchema = z.strictObject({
  name: z.string(),
  /** The chute's service the container runs (`main` for a chute installed without services). */
  service: z.string(),
  /** The container's state, e.g. `running`, `exited`. */
  state: z.string(),
  cpu: z.strictObject({ total_usage_ns: z.number(), percent: z.nullable(z.number()) }),
  memory: z.strictObject({ usage: z.number(), limit: z.number() }),
  network: z.strictObject({ rx_bytes: z.number(), tx_bytes: z.number() }),
  pids: z.number(),
});

/** GET /api/v1/info/telemetry: ParaDrop's telemetry report. */
export const TelemetrySchema = z.strictObject({
  /** When the report was made, in seconds since the epoch. */
  time: z.number(),
  system: z.strictObject({
    boot_time: z.nullable(z.number()),
    cpu_count: z.int(),
    cpu_times: z.array(CpuTimesSchema),
    cpu_times_total: CpuTimesSchema,
    load_average: z.tuple([z.number(), z.number(), z.number()]),
    virtual_memory: z.strictObject({
      total: z.number(),
      available: z.number(),
      free: z.number(),
      buffers: z.number(),
      cached: z.number(),
      used: z.number(),
      percent: z.number(),
    }),
    swap_memory: z.strictObject({ total: z.number(), used: z.number(), free: z.number(), percent: z.number() }),
    disk_usage: z.array(DiskUsageSchema),
    net_io_counters: IoCountersSchema,
  }),
  network: z.array(InterfaceCountersSchema),
  chutes: z.array(ChuteUsageSchema),
});
export type Telemetry = z.infer<typeof TelemetrySchema>;
