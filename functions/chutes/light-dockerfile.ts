import { CONTROL_CHARACTER } from './control-characters.ts';

/*
 * The Dockerfile of a light chute (ParaDrop's `type: light`): chutebox writes it from a template per
 * runtime (`use`), on the base image that runtime names, and builds the chute's source with it. The
 * base image is never pulled by the build: it must be in the device's engine already (docs/api/changes.md,
 * "Light chutes", says how it gets there).
 */

/** What a light chute's runtime builds on: its base image, and the step that installs the source's dependencies. */
interface LightRuntime {
  base: string;
  /** A shell step run in the source's folder, or null when the runtime installs nothing. */
  install: string | null;
}

/** The runtimes a light chute may `use`, as ParaDrop names them. */
export const LIGHT_RUNTIMES = {
  node: { base: 'node:20-slim', install: 'if [ -f package.json ]; then npm install --omit=dev; fi' },
  python2: { base: 'python:2.7-slim', install: 'if [ -f requirements.txt ]; then pip install --requirement requirements.txt; fi' },
  python3: { base: 'python:3.12-slim', install: 'if [ -f requirements.txt ]; then pip install --requirement requirements.txt; fi' },
  go: { base: 'golang:1.22', install: 'if [ -f go.mod ]; then go build -o /usr/local/bin/app .; fi' },
  gradle: { base: 'gradle:8-jdk17', install: 'if [ -f build.gradle ]; then gradle build; fi' },
  maven: { base: 'maven:3-eclipse-temurin-17', install: 'if [ -f pom.xml ]; then mvn package; fi' },
} as const satisfies Record<string, LightRuntime>;

export type LightRuntimeName = keyof typeof LIGHT_RUNTIMES;

/** Whether `use` names a runtime chutebox has a template for. */
export function isLightRuntime(use: unknown): use is LightRuntimeName {
  return typeof use === 'string' && Object.hasOwn(LIGHT_RUNTIMES, use);
}

/** Where a light chute's source is copied in its image, as in ParaDrop's templates. */
export const LIGHT_APP_DIR = '/opt/paradrop/app';

/**
 * The Dockerfile of a light chute's service: its runtime's base image, its source in `/opt/paradrop/app`,
 * its dependencies installed, and its `command` (a string: run by the shell, a list: run as it is).
 * The command was checked for control characters (`isCommand`), so it stays on one line.
 *
 * @example
 * lightDockerfile('python3', 'python3 main.py')
 * // 'FROM python:3.12-slim\nWORKDIR /opt/paradrop/app\nCOPY . /opt/paradrop/app/\nRUN if [ -f requirements.txt ]; …\nCMD python3 main.py\n'
 */
export function lightDockerfile(use: LightRuntimeName, command: string | readonly string[]): string {
  const { base, install } = LIGHT_RUNTIMES[use];
  const lines = [`FROM ${base}`, `WORKDIR ${LIGHT_APP_DIR}`, `COPY . ${LIGHT_APP_DIR}/`];
  if (install !== null) lines.push(`RUN ${install}`);
  lines.push(`CMD ${typeof command === 'string' ? command : JSON.stringify(command)}`);
  return `${lines.join('\n')}\n`;
}

/** A service's `command`: a non-empty string or list of strings, without control characters (a Dockerfile line holds it). */
export function isCommand(command: unknown): command is string | string[] {
  const isLine = (text: unknown) => typeof text === 'string' && text.trim() !== '' && !CONTROL_CHARACTER.test(text);
  return isLine(command) || (Array.isArray(command) && command.length > 0 && command.every(isLine));
}
