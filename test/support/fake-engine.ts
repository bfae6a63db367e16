import { CHUTE_LABEL, chuteContainerName, SERVICE_LABEL } from '../../functions/core/device/index.ts';
import { companionContainerName } from '../../functions/chutes/services.ts';
import { EngineError, type ChuteContainerSpec, type ChuteEngine } from '../../runtime/engine/docker.ts';

/** A container of the fake engine. */
export interface FakeContainer {
  Id: string;
  /** `chute-<chute>`, or `chute-<chute>-<suffix>` once set aside. */
  name: string;
  chute: string;
  /** The chute's service it runs, when not the main one. */
  service?: string;
  State: 'created' | 'running' | 'exited';
  /** What it was created from; a container a test adds by hand has none. */
  spec?: ChuteContainerSpec;
  created: number;
}

/**
 * An in-memory container engine with the semantics `chuteLifecycle` and `recoverChutes` rely on: one
 * container per name (create refuses a taken name), stop/start/remove of a chute's own containers only.
 * `all` is the state a test sets up (as a crash would leave it) and checks afterwards.
 *
 * @example
 * const engine = fakeEngine();
 * engine.add('hello', { State: 'running' });
 * await recoverChutes({ dir, engine, interrupted: [], annotate });
 */
export function fakeEngine(): ChuteEngine & {
  /** Every container, as a test sets them up and checks them. */
  all: FakeContainer[];
  /** Adds a container of `chute` (named `chute-<chute>` unless given) and answers it. */
  add(chute: string, fields?: Partial<FakeContainer>): FakeContainer;
  /** Tags of the images built and not removed. */
  images: Set<string>;
  /** Called before each call with its name; a test may throw from it to make that call fail. */
  before?: (call: string) => void | Promise<void>;
} {
  const containers: FakeContainer[] = [];
  let sequence = 0;
  const nextId = () => (++sequence).toString(16).padStart(64, 'c');

  function own(chute: string, id: string): FakeContainer {
    const container = containers.find((c) => c.Id === id);
    if (container === undefined) throw Object.assign(new EngineError(`No such container: ${id}`), { statusCode: 404 });
    if (container.chute !== chute) throw new EngineError(`container ${id} is not the container of chute ${chute}`);
    return container;
  }

  const engine = {
    all: containers,
    before: undefined as ((call: string) => void | Promise<void>) | undefined,
    add(chute: string, fields: Partial<FakeContainer> = {}): FakeContainer {
      const container: FakeContainer = { Id: nextId(), name: chuteContainerName(chute), chute, State: 'running', created: ++sequence, ...fields };
      containers.push(container);
      return container;
    },
    async containers(chute: string) {
      await engine.before?.('containers');
      return containers
        .filter((c) => c.chute === chute && c.service === undefined)
        .sort((a, b) => b.created - a.created)
        .map((c) => ({ Id: c.Id, State: c.State }));
    },
    async companions(chute: string) {
      await engine.before?.('companions');
      return containers.flatMap((c) => (c.chute === chute && c.service !== undefined ? [{ Id: c.Id, State: c.State, service: c.service }] : []));
    },
    async listAll() {
      await engine.before?.('listAll');
      return containers.map((c) => ({
        Id: c.Id,
        Names: [`/${c.name}`],
        State: c.State,
        Status: c.State === 'exited' ? 'Exited (0) 1 second ago' : '',
        Created: c.created,
        Labels: { [CHUTE_LABEL]: c.chute, ...(c.service === undefined ? {} : { [SERVICE_LABEL]: c.service }) },
      }));
    },
    async create(chute: string, spec: ChuteContainerSpec) {
      await engine.before?.('create');
      const name = spec.service === undefined ? chuteContainerName(chute) : companionContainerName(chute, spec.service);
      if (containers.some((c) => c.name === name)) throw new EngineError(`Conflict. The container name "/${name}" is already in use`);
      return engine.add(chute, { State: 'created', spec, name, ...(spec.service === undefined ? {} : { service: spec.service }) }).Id;
    },
    async start(chute: string, id: string) {
      await engine.before?.('start');
      own(chute, id).State = 'running';
    },
    async stop(chute: string, id: string) {
      await engine.before?.('stop');
      const container = own(chute, id);
      if (container.State === 'running') container.State = 'exited';
    },
    async remove(chute: string, id: string) {
      await engine.before?.('remove');
      const index = containers.findIndex((c) => c.Id === id);
      if (index === -1) return;
      own(chute, id);
      containers.splice(index, 1);
    },
    async rename(chute: string, id: string, suffix: string | null) {
      await engine.before?.('rename');
      const container = own(chute, id);
      const name = suffix === null ? chuteContainerName(chute) : `${chuteContainerName(chute)}-${suffix}`;
      if (containers.some((c) => c !== container && c.name === name)) throw new EngineError(`Conflict. The container name "/${name}" is already in use`);
      container.name = name;
    },
    /** Images built (`build`) and not removed, by tag; a test may add some. */
    images: new Set<string>(),
    async build(_context: Uint8Array, tag: string, _networkMode: string, output: (line: string) => Promise<void>) {
      await engine.before?.('build');
      await output(`Successfully tagged ${tag}`);
      engine.images.add(tag);
    },
    async removeImage(tag: string) {
      await engine.before?.('removeImage');
      engine.images.delete(tag);
    },
    async inspect(chute: string, id: string) {
      await engine.before?.('inspect');
      const container = own(chute, id);
      return {
        Id: container.Id,
        Name: `/${container.name}`,
        State: { Status: container.State, Running: container.State === 'running' },
        HostConfig: { NetworkMode: container.spec?.networkMode ?? 'bridge' },
      };
    },
  };
  return engine;
}
