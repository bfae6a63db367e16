import { CfnOutput, type Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { openApiPath } from '../../../functions/core/openapi/paths.ts';
import { routePaths, type Route } from '../../../functions/core/route.ts';

/** The domain below which each device answers as `<id>.<domain>`, and the ACM certificate of `*.<domain>` that serves it. */
export interface FleetDomain {
  name: string;
  /** Without one, the API answers `Host: <id>.<domain>` but no domain is mapped to it (map it yourself). */
  certificateArn?: string;
}

/** Where a device's API is, below the fleet's URL: `/devices/router-3/api/v1/…`. */
export const DEVICE_PREFIX = '/devices/{device}';

/** One endpoint of the fleet: a bundle's route and the function that runs it. */
export interface FleetEndpoint {
  bundle: Pick<Route, 'method' | 'path' | 'aliases'> & { name: string };
  handler: lambda.IFunction;
}

/**
 * The fleet's HTTP API (API Gateway v2, payload 2.0): each endpoint's paths, its aliases too, below
 * `/devices/{device}`, and with a domain also as they are (the device then named by the host), each
 * with the endpoint's method and integrated with its function.
 */
export function addFleetApi(stack: Stack, endpoints: readonly FleetEndpoint[], domain: FleetDomain | undefined): apigw.HttpApi {
  const domainName =
    domain?.certificateArn === undefined
      ? undefined
      : new apigw.DomainName(stack, 'Domain', {
          domainName: `*.${domain.name}`,
          certificate: acm.Certificate.fromCertificateArn(stack, 'Certificate', domain.certificateArn),
        });
  const api = new apigw.HttpApi(stack, 'Api', {
    description: 'A fleet of emulated routers (chutebox)',
    ...(domainName === undefined ? {} : { defaultDomainMapping: { domainName } }),
  });
  for (const { bundle, handler } of endpoints) {
    const integration = new HttpLambdaIntegration(`${bundle.name}-integration`, handler);
    for (const path of fleetPaths(bundle, domain !== undefined)) api.addRoutes({ path, methods: [apigw.HttpMethod[bundle.method]], integration });
  }
  if (domainName !== undefined) {
    new CfnOutput(stack, 'DomainTarget', { value: domainName.regionalDomainName, description: `Point *.${domain!.name} at it with a CNAME record` });
  }
  return api;
}

/** The API Gateway paths of a route: `:name` parameters as `{name}`, below `/devices/{device}`, and as they are when a host names the device. */
export function fleetPaths(route: Pick<Route, 'path' | 'aliases'>, byHost: boolean): string[] {
  const paths = routePaths(route).map(openApiPath);
  return [...paths.map((path) => `${DEVICE_PREFIX}${path}`), ...(byHost ? paths : [])];
}
