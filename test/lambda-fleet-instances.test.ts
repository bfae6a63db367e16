import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { FLEET_ENV } from '../emulator/fleet/lambda/fleet-table.ts';
import { fleetMember, type FleetSpec } from '../emulator/fleet/members.ts';
import { useDynalite } from './support/dynalite.ts';
import { httpApiEvent, jsonEvent } from './support/lambda.ts';
import { startLambdaInstance, type LambdaInstance } from './support/lambda-instances.ts';
import { numberedKey } from './support/ssh-keys.ts';

/*
 * A fleet on two Lambda instances: two Node processes, each loading the built function bundles as an
 * instance does, sharing nothing but the table in DynamoDB (dynalite, in this process).
 */

const db = useDynalite();
const spec: FleetSpec = { size: 6, seed: 11, scenarios: [{ scenario: 'default', share: 1 }] };
const ids = Array.from({ length: spec.size }, (_, index) => fleetMember(spec, index).id);

/** How long each step of a change takes on the fleet's devices. */
const DELAY_MS = 1000;

let instances: LambdaInstance[] = [];

beforeAll(async () => {
  const env = {
    ...db().awsEnv,
    [FLEET_ENV.table]: await db().table('fleet'),
    [FLEET_ENV.size]: String(spec.size),
    [FLEET_ENV.seed]: String(spec.seed),
    [FLEET_ENV.endpoint]: db().endpoint,
    CHUTEBOX_CHANGE_DELAY: String(DELAY_MS),
  };
  instances = [startLambdaInstance(env), startLambdaInstance(env)];
});

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
});

/** The body of an answer, parsed, after checking its status. */
function bodyOf(answer: APIGatewayProxyStructuredResultV2, status = 200): unknown {
  expect(answer.statusCode, answer.body).toBe(status);
  return JSON.parse(answer.body!);
}

/** Invokes until the answer is not a 503 (the device changed during each try), as the 503's `Retry-After` asks. */
async function untilKept(instance: LambdaInstance, bundle: string, event: () => APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  for (;;) {
    const answer = await instance.invoke(bundle, event());
    if (answer.statusCode !== 503) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a fleet on two Lambda instances', () => {
  it('reads through one instance the SSID a PUT wrote through the other', async () => {
    const [one, other] = instances as [LambdaInstance, LambdaInstance];
    const path = `/devices/${ids[0]}/api/v1/chutes/hotspot/networks/guest/ssid`;
    expect(bodyOf(await one.invoke('networks-ssid-get', httpApiEvent('GET', path)))).not.toMatchObject({ ssid: 'two-instances' });
    expect(bodyOf(await one.invoke('networks-ssid-put', jsonEvent('PUT', path, { ssid: 'two-instances' })))).toEqual({ message: 'OK' });
    expect(bodyOf(await other.invoke('networks-ssid-get', httpApiEvent('GET', path)))).toMatchObject({ ssid: 'two-instances' });
  });

  // Each write that finds the device changed runs again after a wait (up to 1 s): 100 at once on one device take a while.
  it('loses none of 100 SSH keys added to one device at once through both instances', { timeout: 200_000 }, async () => {
    const path = `/devices/${ids[1]}/api/v1/config/sshKeys/paradrop`;
    const recorded = bodyOf(await instances[0]!.invoke('config-ssh-keys-get', httpApiEvent('GET', path))) as string[];
    const keys = Array.from({ length: 100 }, (_, n) => numberedKey(n, 'instances'));
    const answers = await Promise.all(keys.map((key, n) => untilKept(instances[n % 2]!, 'config-ssh-keys-post', () => jsonEvent('POST', path, { key }))));
    expect(answers.map((answer) => answer.statusCode)).toEqual(keys.map(() => 200));
    const listed = bodyOf(await instances[1]!.invoke('config-ssh-keys-get', httpApiEvent('GET', path))) as string[];
    expect([...listed].sort()).toEqual([...recorded, ...keys].sort());
  });

  it('shows a change made through one instance progressing, then succeeded, through the other', async () => {
    const [one, other] = instances as [LambdaInstance, LambdaInstance];
    // Each instance loads its bundle first, so that no load holds up a read while the change runs.
    const changePath = (id: number) => `/devices/${ids[2]}/api/v1/changes/${id}`;
    bodyOf(await other.invoke('changes-change-get', httpApiEvent('GET', changePath(1_000_000))), 404);
    const { change_id } = bodyOf(await one.invoke('chutes-stop-post', httpApiEvent('POST', `/devices/${ids[2]}/api/v1/chutes/hotspot/stop`))) as {
      change_id: number;
    };
    const read = async () => bodyOf(await other.invoke('changes-change-get', httpApiEvent('GET', changePath(change_id)))) as ChangeRecord;
    const states = new Set<string>();
    let record = await read();
    while (record.state !== 'succeeded' && record.state !== 'failed') {
      states.add(record.state);
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS / 4));
      record = await read();
    }
    expect([...states, record.state]).toEqual(['queued', 'running', 'succeeded']);
  });
});
