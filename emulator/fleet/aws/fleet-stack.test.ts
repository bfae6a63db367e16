import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir.ts';
import { fleetStackProps, readFleetPackage, type FleetPackage } from './fleet-context.ts';
import { FleetStack, OUTBOUND_HANDLER, TABLE_ACTIONS } from './fleet-stack.ts';

/*
 * The fleet's AWS CDK app, synthesized here without an AWS account or network, checked with
 * aws-cdk-lib/assertions and CloudFormation's own validation that the synthesis runs. The functions'
 * code is the built dist/: without it the tests are skipped, with the reason printed.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const built = existsSync(path.join(ROOT, 'dist', 'manifest.json')) && existsSync(path.join(ROOT, 'dist', 'aws', 'fleet.mjs'));
if (!built) console.warn('emulator/fleet/aws/fleet-stack.test.ts skipped: dist/ is not built (node esbuild.config.mjs)');

/** A deployment as `cdk deploy -c …` describes it. */
const CONTEXT = {
  fleet: '10000',
  seed: '7',
  scenarios: 'default=0.7,gl-ar150=0.3',
  shards: '3',
  controller: 'https://controller.example/',
  'change-delay': '250',
};

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }>;

const temp = useTempDir('chutebox-fleet-stack-');
let home: string | undefined;
let fleetPackage: FleetPackage;

beforeAll(() => {
  if (!built) return;
  // The CDK keeps a cache of file hashes in the home folder: this run's goes to its temp folder.
  home = process.env.HOME;
  process.env.HOME = temp.path();
  fleetPackage = readFleetPackage(ROOT);
});
afterAll(() => {
  if (home !== undefined) process.env.HOME = home;
});

/** The stack that `context` describes, synthesized into a fresh folder: its template and that folder. */
async function synthesize(context: Record<string, string>): Promise<{ template: Template; resources: Resources; outdir: string }> {
  const outdir = await temp.folder(
    `out-${Object.values(context)
      .join('-')
      .replace(/[^\w-]/g, '')}`,
  );
  const app = new App({ outdir });
  const { stackName, props } = fleetStackProps((key) => context[key as keyof typeof context], fleetPackage);
  const template = Template.fromStack(new FleetStack(app, stackName, props));
  return { template, resources: template.toJSON().Resources as Resources, outdir };
}

/** The logical id of the one resource of `type`. */
function onlyOf(resources: Resources, type: string): string {
  const ids = Object.keys(resources).filter((id) => resources[id]!.Type === type);
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

/** Each function's handler, by logical id. */
function handlers(resources: Resources): Map<string, string> {
  return new Map(
    Object.entries(resources).flatMap(([id, { Type, Properties }]) => (Type === 'AWS::Lambda::Function' ? [[id, Properties.Handler as string]] : [])),
  );
}

/** The handler of the function an `Fn::GetAtt: [id, 'Arn']` names. */
const handlerOf = (resources: Resources, arn: unknown) => handlers(resources).get((arn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]);

/** A route path as API Gateway writes it: `:name` as `{name}`. */
const gatewayPath = (routePath: string) => routePath.replace(/:(\w+)/g, '{$1}');

describe.skipIf(!built)('the fleet on AWS, synthesized offline', () => {
  let resources: Resources;
  let template: Template;
  let outdir: string;

  beforeAll(async () => {
    ({ template, resources, outdir } = await synthesize(CONTEXT));
  }, 60_000);

  it('has a function per endpoint bundle and the outbound one, each on Node.js 22 and arm64 with the fleet in its environment', () => {
    const expected = [...fleetPackage.bundles.map((bundle) => `dist/functions/${bundle.name}.handler`), OUTBOUND_HANDLER];
    expect([...handlers(resources).values()].sort()).toEqual(expected.sort());
    const table = onlyOf(resources, 'AWS::DynamoDB::Table');
    for (const id of handlers(resources).keys()) {
      const fn = resources[id]!.Properties;
      expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], MemorySize: 512, Timeout: fn.Handler === OUTBOUND_HANDLER ? 55 : 10 });
      expect(fn.Environment).toEqual({
        Variables: {
          CHUTEBOX_FLEET_TABLE: { Ref: table },
          CHUTEBOX_FLEET_SIZE: '10000',
          CHUTEBOX_SEED: '7',
          CHUTEBOX_FLEET_SCENARIOS: 'default=0.7,gl-ar150=0.3',
          CHUTEBOX_CONTROLLER: 'https://controller.example/',
          CHUTEBOX_CHANGE_DELAY: '250',
        },
      });
    }
  });

  it('routes each endpoint’s method on its paths, aliases too, below /devices/{device}, to its own function with payload 2.0', () => {
    const expected = fleetPackage.bundles.flatMap((bundle) =>
      [bundle.path, ...(bundle.aliases ?? [])].map(
        (routePath) => `${bundle.method} /devices/{device}${gatewayPath(routePath)} → dist/functions/${bundle.name}.handler`,
      ),
    );
    const routed = Object.values(resources)
      .filter(({ Type }) => Type === 'AWS::ApiGatewayV2::Route')
      .map(({ Properties }) => {
        const [, [, { Ref: integration }]] = (Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] })['Fn::Join'];
        const { IntegrationType, PayloadFormatVersion, IntegrationUri } = resources[integration]!.Properties;
        expect({ IntegrationType, PayloadFormatVersion }).toEqual({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
        return `${Properties.RouteKey} → ${handlerOf(resources, IntegrationUri)}`;
      });
    expect(routed.sort()).toEqual(expected.sort());
    expect(expected).toContain('GET /devices/{device}/api/v1/config/new_config → dist/functions/config-new-config-get.handler');
    expect(expected).toContain(
      'DELETE /devices/{device}/api/v1/chutes/{chute}/networks/{network}/stations/{mac} → dist/functions/networks-station-delete.handler',
    );
    // API Gateway may invoke each function for its routes.
    template.resourceCountIs('AWS::Lambda::Permission', expected.length);
  });

  it('keeps the devices’ state in an on-demand table keyed by device, removed with the stack', () => {
    const table = resources[onlyOf(resources, 'AWS::DynamoDB::Table')]!;
    expect(table.Properties).toEqual({
      KeySchema: [{ AttributeName: 'device', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'device', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(table.DeletionPolicy).toBe('Delete');
  });

  it('runs the outbound handler every minute once per shard, each given its shard, and never a missed minute later', () => {
    const schedules = Object.values(resources).filter(({ Type }) => Type === 'AWS::Scheduler::Schedule');
    const targets = schedules.map(({ Properties }) => {
      expect(Properties.ScheduleExpression).toBe('rate(1 minute)');
      const target = Properties.Target as { Arn: unknown; Input: string; RetryPolicy: unknown };
      expect(handlerOf(resources, target.Arn)).toBe(OUTBOUND_HANDLER);
      expect(target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 });
      return JSON.parse(target.Input) as unknown;
    });
    expect(targets).toEqual([0, 1, 2].map((shard) => ({ shard, shards: 3 })));
  });

  it('lets the functions read and write the table’s items and their log group, and nothing else', () => {
    const roles = new Set([...handlers(resources).keys()].map((id) => (resources[id]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]));
    expect(roles.size).toBe(1);
    const [role] = [...roles] as [string];
    expect(resources[role]!.Properties).toEqual({
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
      },
    });
    const statements = Object.values(resources)
      .filter(({ Type, Properties }) => Type === 'AWS::IAM::Policy' && JSON.stringify(Properties.Roles) === JSON.stringify([{ Ref: role }]))
      .flatMap(({ Properties }) => (Properties.PolicyDocument as { Statement: unknown[] }).Statement);
    expect(statements).toEqual([
      { Effect: 'Allow', Action: [...TABLE_ACTIONS], Resource: [{ 'Fn::GetAtt': [onlyOf(resources, 'AWS::DynamoDB::Table'), 'Arn'] }] },
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [onlyOf(resources, 'AWS::Logs::LogGroup'), 'Arn'] } },
    ]);
    expect(TABLE_ACTIONS.filter((action) => /Scan|Query|Table|\*/.test(action))).toEqual([]);
  });

  it('ships the built bundles and scenarios as one code package laid out as the npm package, without the CDK app, the sources or node_modules', () => {
    const keys = new Set([...handlers(resources).keys()].map((id) => (resources[id]!.Properties.Code as { S3Key: string }).S3Key));
    expect(keys.size).toBe(1);
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(assets).toEqual([`asset.${[...keys][0]!.replace(/\.zip$/, '')}`]);
    const code = path.join(outdir, assets[0]!);
    expect(readdirSync(code).sort()).toEqual(['dist', 'fixtures']);
    expect(readdirSync(path.join(code, 'fixtures'))).toEqual(['scenarios']);
    for (const bundle of fleetPackage.bundles) expect(existsSync(path.join(code, 'dist', 'functions', `${bundle.name}.mjs`)), bundle.name).toBe(true);
    for (const file of [
      'dist/scenario-device.mjs',
      'dist/fleet-device.mjs',
      'dist/fleet-outbound.mjs',
      'dist/manifest.json',
      'dist/scenarios/default.json',
      'fixtures/scenarios/gl-ar150/device.yaml',
    ]) {
      expect(existsSync(path.join(code, file)), file).toBe(true);
    }
    for (const file of ['dist/aws', 'dist/docs', 'dist/types', 'dist/lib-emulator.mjs']) expect(existsSync(path.join(code, file)), file).toBe(false);
  });

  it('passes CloudFormation’s validation of the synthesized template without an error', () => {
    const report = JSON.parse(readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; conclusion: string; violations: { ruleName: string; severity: string }[] }[];
    };
    // The synthesis wrote the report of its validation; a plugin that found anything is listed, each concluding success.
    for (const { pluginName, conclusion } of report.pluginReports) expect(`${pluginName}: ${conclusion}`).toBe('CloudFormation Validate: success');
    expect(report.pluginReports.flatMap(({ violations }) => violations.filter(({ severity }) => severity === 'error'))).toEqual([]);
  });
});

describe.skipIf(!built)('a fleet answering by host under a domain', () => {
  it('routes each endpoint’s paths also as they are, maps *.<domain> with its certificate and tells the functions the domain', async () => {
    const certificate = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f';
    const { resources } = await synthesize({ fleet: '100', domain: 'fleet.example.com', certificate });
    const keys = Object.values(resources).flatMap(({ Type, Properties }) => (Type === 'AWS::ApiGatewayV2::Route' ? [Properties.RouteKey as string] : []));
    for (const bundle of fleetPackage.bundles) {
      expect(keys).toContain(`${bundle.method} ${gatewayPath(bundle.path)}`);
      expect(keys).toContain(`${bundle.method} /devices/{device}${gatewayPath(bundle.path)}`);
    }
    expect(resources[onlyOf(resources, 'AWS::ApiGatewayV2::DomainName')]!.Properties).toMatchObject({
      DomainName: '*.fleet.example.com',
      DomainNameConfigurations: [{ CertificateArn: certificate, EndpointType: 'REGIONAL' }],
    });
    onlyOf(resources, 'AWS::ApiGatewayV2::ApiMapping');
    for (const id of handlers(resources).keys()) {
      expect((resources[id]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables.CHUTEBOX_FLEET_DOMAIN).toBe('fleet.example.com');
    }
  }, 60_000);
});

describe.skipIf(!built)('the context of cdk deploy', () => {
  const propsOf = (context: Record<string, unknown>) => fleetStackProps((key) => context[key], fleetPackage);

  it.each([
    [{}, /^-c fleet: the number of devices is missing/],
    [{ fleet: '0' }, /^-c fleet: must be a whole number from 1 to 1000000000, not "0"$/],
    [{ fleet: 'ten' }, /^-c fleet: must be a whole number/],
    [{ fleet: '10', shards: '0' }, /^-c shards: must be a whole number from 1 to 10, not "0"$/],
    [{ fleet: '1000', shards: '101' }, /^-c shards: must be a whole number from 1 to 100, not "101"$/],
    [{ fleet: '10', seed: '-1' }, /^-c seed: --seed must be a whole number/],
    [{ fleet: '10', scenarios: 'atlantis=1' }, /^-c scenarios: unknown scenario "atlantis": a fleet runs built-in scenarios \(.*default.*gl-ar150.*\)$/],
    [{ fleet: '10', scenarios: 'default=0' }, /^-c scenarios: the share of default must be a positive number/],
    [{ fleet: '10', scenarios: 'default' }, /^-c scenarios: the share of default must be a positive number/],
    [{ fleet: '10', scenarios: 'default=1,default=2' }, /^-c scenarios: the scenario default is named twice$/],
    [{ fleet: '10', controller: 'ftp://controller.example' }, /^-c controller: --controller must be an http or https URL/],
    [{ fleet: '10', 'change-delay': '70000' }, /^-c change-delay: --change-delay must be a whole number of milliseconds/],
    [{ fleet: '10', domain: 'Fleet.Example.com' }, /^-c domain: must be a domain name in lower case/],
    [{ fleet: '10', certificate: 'arn:aws:acm:eu-west-1:123456789012:certificate/x' }, /^-c certificate: a certificate is for a -c domain, and none is given$/],
    [{ fleet: '10', domain: 'fleet.example.com', certificate: 'my-cert' }, /^-c certificate: must be the ARN of an ACM certificate/],
    [{ fleet: '10', runtime: 'nodejs18.x' }, /^-c runtime: must be one of nodejs20.x, nodejs22.x, nodejs24.x, not "nodejs18.x"$/],
    [{ fleet: '10', memory: '64' }, /^-c memory: must be a whole number from 128 to 10240/],
    [{ fleet: '10', timeout: '31' }, /^-c timeout: must be a whole number from 1 to 30/],
    [{ fleet: '10', stack: '1fleet' }, /^-c stack: must be a CloudFormation stack name/],
  ])('refuses %j, naming the key', (context, message) => {
    expect(() => propsOf(context)).toThrow(message);
  });

  it('takes the numbers of a cdk.json as the command line’s strings, and gives the defaults for what is not given', () => {
    expect(propsOf({ fleet: 100, seed: 3 })).toMatchObject({
      stackName: 'ChuteboxFleet',
      props: { fleet: { size: 100, seed: 3, scenarios: [{ scenario: 'default', share: 1 }] }, shards: 1 },
    });
  });
});

describe.skipIf(!built)('dist/aws/fleet.mjs, as cdk deploy runs it', () => {
  /** The app run as the CDK command line runs it: the context and the output folder in its environment. */
  const runApp = (context: Record<string, string>, outdir: string) =>
    spawnSync(process.execPath, [path.join(ROOT, 'dist', 'aws', 'fleet.mjs')], {
      env: { PATH: process.env.PATH ?? '', HOME: temp.path(), CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify(context) },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('synthesizes the stack it is given with its code from the package root', async () => {
    const outdir = await temp.folder('app');
    const result = runApp({ fleet: '50', shards: '2', stack: 'LabFleet' }, outdir);
    expect(result.status, result.stderr).toBe(0);
    const template = JSON.parse(readFileSync(path.join(outdir, 'LabFleet.template.json'), 'utf8')) as { Resources: Resources };
    const types = Object.values(template.Resources).map(({ Type }) => Type);
    expect(types.filter((type) => type === 'AWS::Lambda::Function')).toHaveLength(fleetPackage.bundles.length + 1);
    expect(types.filter((type) => type === 'AWS::Scheduler::Schedule')).toHaveLength(2);
    const [asset] = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(existsSync(path.join(outdir, asset!, 'dist', 'functions', 'info-hardware-get.mjs'))).toBe(true);
  }, 60_000);

  it('tells a bad context value in one line and exits 2, making nothing', async () => {
    const outdir = await temp.folder('bad');
    const result = runApp({ fleet: '50', shards: '0' }, outdir);
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 2,
      stderr: 'chutebox fleet: -c shards: must be a whole number from 1 to 50, not "0"\n',
    });
    expect(readdirSync(outdir)).toEqual([]);
  });
});
