import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { fleetStackProps, readFleetPackage } from './fleet-context.ts';
import { FleetStack } from './fleet-stack.ts';

/**
 * The AWS CDK app of a fleet on Lambda, built as `dist/aws/fleet.mjs` and run by the CDK command line:
 * `npx cdk deploy --app 'node dist/aws/fleet.mjs' -c fleet=10000 …` (docs/bundles.md#deploying-a-fleet-on-aws).
 * It takes the functions' code from the package root two folders above that bundle; a bad context
 * value is told in one line, without a stack.
 */
try {
  // Synthesized below once the stack is made, and not at exit after a bad value.
  const app = new App({ autoSynth: false });
  const built = readFleetPackage(fileURLToPath(new URL('../../', import.meta.url)));
  const { stackName, props } = fleetStackProps((key) => app.node.tryGetContext(key), built);
  new FleetStack(app, stackName, props);
  app.synth();
} catch (error) {
  if (typeof (error as { exitCode?: unknown }).exitCode !== 'number') throw error;
  console.error(`chutebox fleet: ${(error as Error).message}`);
  process.exitCode = (error as { exitCode: number }).exitCode;
}
