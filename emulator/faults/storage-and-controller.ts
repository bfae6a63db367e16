import type { DeviceFault, DeviceFaultKind } from './device-fault.ts';

/*
 * The device faults that hit what the device reaches below its facets: its storage (`disk-full`) and
 * the cloud controller (`controller-unreachable`). They fail as Node fails on a device, so that the
 * runtime's own code (the controller client, the error answers) says what it says on serve.
 */

/** Whether a fault of this kind is active now. */
export function faultActive(active: () => readonly DeviceFault[], kind: DeviceFaultKind): boolean {
  return active().some((fault) => fault.device === kind);
}

/**
 * What a write to a full file system throws in Node: `ENOSPC`, as serve meets it (runtime/state/atomic-write.ts).
 *
 * @example
 * noSpaceLeft().code // 'ENOSPC'
 */
export function noSpaceLeft(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

/** Throws `noSpaceLeft()` while `disk-full` is active: call it where the device would write. */
export function checkDiskSpace(active: () => readonly DeviceFault[]): void {
  if (faultActive(active, 'disk-full')) throw noSpaceLeft();
}

/**
 * A fetch that fails while `controller-unreachable` is active as Node's fetch fails on a closed port
 * (`TypeError: fetch failed`, caused by `connect ECONNREFUSED <host>:<port>`), and is `fetch` otherwise.
 * The host is the URL's as written: the emulator resolves no name.
 *
 * @example
 * const fetch = unreachableController(fake.fetch, active);
 * await fetch('http://controller.test:8000/api/routers/r1'); // rejects while the fault is active
 */
export function unreachableController(fetch: typeof globalThis.fetch, active: () => readonly DeviceFault[]): typeof globalThis.fetch {
  return async (input, init) => {
    if (!faultActive(active, 'controller-unreachable')) return fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const address = `${url.hostname.replace(/^\[|\]$/g, '')}:${port}`;
    const cause = Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address });
    throw new TypeError('fetch failed', { cause });
  };
}
