import { CfnOutput, Duration, IgnoreMode, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';
import type { Route } from '../../../functions/core/route.ts';
import { FLEET_ENV, TABLE_KEY } from '../lambda/fleet-table.ts';
import type { FleetSpec } from '../members.ts';
import { addFleetApi, type FleetDomain } from './fleet-api.ts';

/**
 * A fleet of emulated routers on AWS Lambda (docs/decisions/0058-the-fleet-on-aws-as-a-cdk-app.md):
 * a function per endpoint bundle behind an HTTP API, the outbound handler run once per shard every
 * minute, and the DynamoDB table that holds what each device changed.
 */

/** An endpoint bundle as dist/manifest.json lists it: its name (`info-hardware-get`) and route. */
export type FleetBundle = Pick<Route, 'method' | 'path' | 'aliases'> & { name: string };

/** What a deployed fleet is made of and how it runs. */
export interface FleetStackProps extends StackProps {
  /** The folder holding the built `dist/` and `fixtures/scenarios/`: the code of every function. */
  packageRoot: string;
  /** The endpoint bundles of `dist/manifest.json`. */
  bundles: readonly FleetBundle[];
  fleet: FleetSpec;
  /** How many invocations of the outbound handler share the fleet each minute. */
  shards: number;
  /** The controller the devices provision with and send telemetry to; default the built-in fake one. */
  controller?: string;
  /** Milliseconds a change takes per step, as `emulate --change-delay`. */
  changeDelayMs?: number;
  /** Devices also answered at `https://<id>.<domain>/api/v1/…`. */
  domain?: FleetDomain;
  /**
   * The functions' Node.js runtime; default `nodejs22.x`: the bundles are built for Node 20, which
   * Lambda deprecated on 2026-04-30, and run on the later ones as they are.
   */
  runtime?: FleetRuntime;
  /** Memory of each function, in MB; default 512. */
  memoryMb?: number;
  /** How long an endpoint's function may run, in seconds; default 10. */
  timeoutSeconds?: number;
  /** How long a shard's outbound run may take, in seconds; default 55, within the minute between runs. */
  outboundTimeoutSeconds?: number;
  /** How long the functions' log lines are kept; default a week. */
  logRetention?: logs.RetentionDays;
}

/** The Node.js runtimes of Lambda the functions run on. */
export const FLEET_RUNTIMES = { 'nodejs20.x': lambda.Runtime.NODEJS_20_X, 'nodejs22.x': lambda.Runtime.NODEJS_22_X, 'nodejs24.x': lambda.Runtime.NODEJS_24_X };
export type FleetRuntime = keyof typeof FLEET_RUNTIMES;

/** What the functions may do to the table: items read and written by key, nothing else (no scan, no table change). */
export const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

/** The scheduled outbound handler (provisioning, telemetry), in the package. */
export const OUTBOUND_HANDLER = 'dist/fleet-outbound.handler';

/**
 * What the code asset leaves out of the package root, in .gitignore's terms: all but `dist/` (less the
 * CDK app, the docs page, the declarations and the library entries, which no function loads) and
 * `fixtures/scenarios/`, laid out as in the package so that the bundles find the scenarios.
 */
const NOT_SHIPPED = ['/*', '!/dist/', '!/fixtures/', '/fixtures/*', '!/fixtures/scenarios/', '/dist/aws/', '/dist/docs/', '/dist/types/', '/dist/lib-*'];

export class FleetStack extends Stack {
  constructor(scope: Construct, id: string, props: FleetStackProps) {
    super(scope, id, props);
    const table = new dynamodb.Table(this, 'Devices', {
      partitionKey: { name: TABLE_KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // The devices are emulated: their state goes with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_WEEK, removalPolicy: RemovalPolicy.DESTROY });
    const role = new iam.Role(this, 'FunctionRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    table.grant(role, ...TABLE_ACTIONS);
    logGroup.grantWrite(role);

    const code = lambda.Code.fromAsset(props.packageRoot, { ignoreMode: IgnoreMode.GIT, exclude: NOT_SHIPPED });
    const environment = fleetEnvironment(props, table.tableName);
    const fleetFunction = (id: string, handler: string, timeoutSeconds: number) =>
      new lambda.Function(this, id, {
        runtime: FLEET_RUNTIMES[props.runtime ?? 'nodejs22.x'],
        architecture: lambda.Architecture.ARM_64,
        code,
        handler,
        role,
        logGroup,
        environment,
        memorySize: props.memoryMb ?? 512,
        timeout: Duration.seconds(timeoutSeconds),
      });

    const endpoints = props.bundles.map((bundle) => ({
      bundle,
      handler: fleetFunction(bundle.name, `dist/functions/${bundle.name}.handler`, props.timeoutSeconds ?? 10),
    }));
    const api = addFleetApi(this, endpoints, props.domain);
    const outbound = fleetFunction('fleet-outbound', OUTBOUND_HANDLER, props.outboundTimeoutSeconds ?? 55);
    for (let shard = 0; shard < props.shards; shard++) {
      new scheduler.Schedule(this, `Outbound${shard}`, {
        description: `Provisioning and telemetry of shard ${shard} of ${props.shards} of the fleet`,
        schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
        // A minute's run that did not happen is not made up later: the next minute's comes.
        target: new LambdaInvoke(outbound, {
          input: scheduler.ScheduleTargetInput.fromObject({ shard, shards: props.shards }),
          retryAttempts: 0,
          maxEventAge: Duration.minutes(1),
        }),
      });
    }
    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint, description: 'The fleet: a device at <ApiUrl>/devices/router-<index>/api/v1/…' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }
}

/** The functions' environment: what a handler needs to find a member and its state (the names the fleet's handlers read). */
function fleetEnvironment(props: FleetStackProps, tableName: string): Record<string, string> {
  const { fleet, domain, controller, changeDelayMs } = props;
  return {
    [FLEET_ENV.table]: tableName,
    [FLEET_ENV.size]: String(fleet.size),
    [FLEET_ENV.seed]: String(fleet.seed),
    [FLEET_ENV.scenarios]: fleet.scenarios.map(({ scenario, share }) => `${scenario}=${share}`).join(','),
    ...(domain === undefined ? {} : { [FLEET_ENV.domain]: domain.name }),
    ...(controller === undefined ? {} : { CHUTEBOX_CONTROLLER: controller }),
    ...(changeDelayMs === undefined ? {} : { CHUTEBOX_CHANGE_DELAY: String(changeDelayMs) }),
  };
}
