import type { Device } from '../../functions/core/device/index.ts';
import type { MemoryAccountsSpec } from '../../emulator/scenario/accounts.ts';
import { memoryDevice } from './memory-device.ts';

/**
 * The passwd database of the SSH key handler tests: OpenWrt's system accounts, `paradrop`, a machine
 * account (`$` at the end) and an account whose home is not an absolute path.
 */
export const PASSWD = [
  'root:x:0:0:root:/root:/bin/ash',
  'daemon:*:1:1:daemon:/var:/bin/false',
  'nobody:*:65534:65534:nobody:/var:/bin/false',
  'paradrop:x:1000:1000:ParaDrop:/home/paradrop:/bin/ash',
  'machine$:x:1001:1001::/home/machine:/bin/false',
  'homeless:x:1002:1002::relative/home:/bin/false',
  '',
].join('\n');

/**
 * A device whose accounts are `PASSWD` with the given `authorized_keys` texts by user name.
 *
 * @example
 * const device = accountsDevice({ paradrop: 'ssh-ed25519 AAAAC3Nza… alice@laptop\n' });
 */
export function accountsDevice(keys: MemoryAccountsSpec['keys'] = {}): Device {
  return memoryDevice({ accounts: { passwd: PASSWD, keys } });
}
