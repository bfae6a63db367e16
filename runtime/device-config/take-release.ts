import type { RuntimeRelease } from '../controller/client.ts';
import type { Note } from '../changes/runner.ts';
import type { ProvisioningService } from './provisioning.ts';

/**
 * The first steps of an `update-runtime` change, on serve and in the emulator alike (no Node built-in):
 * asks the controller the device is provisioned with for a release and takes its archive, checked
 * against its SHA-256 (`ProvisioningService.release`), noting each step. Null when the controller
 * offers none, which the change notes as nothing to do.
 *
 * @throws HttpProblem when the device is not provisioned (409) or the controller fails (502, 504).
 */
export async function takeRelease(
  provisioning: Pick<ProvisioningService, 'release'>,
  note: Note,
): Promise<{ release: RuntimeRelease; archive: Uint8Array } | null> {
  await note('asking the controller for a release of chutebox');
  const offered = await provisioning.release();
  if (offered === null) await note('the controller offers no release: nothing to do');
  else await note(`release ${offered.release.version} taken, its SHA-256 checked`);
  return offered;
}
