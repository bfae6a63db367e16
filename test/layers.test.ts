import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of the source, lowest first: a module may import its own layer and the layers below it,
 * never one above (docs/decisions/0021-layers-point-down.md). Tests (test/, *.test.ts, *.bench.ts)
 * sit on top and may import anything, so they are not checked.
 */
const LAYERS = ['functions', 'runtime', 'emulator'] as const;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILTINS = new Set(builtinModules);

/**
 * How a module names another:
 * - `static`: `import … from`, `export … from`, `import {} from`;
 * - `dynamic`: `import('…')` with a string literal (a computed specifier names no source file: a
 *   bundle found at run time, as in functions/core/lambda.ts);
 * - `type`: erased from the JavaScript: `import type`, `export type … from` and `import('…')` in a
 *   type. `import { type A } from` is not among them: with `verbatimModuleSyntax` (tsconfig.json) it
 *   stays an `import {} from`, which loads the module.
 */
type Kind = 'static' | 'dynamic' | 'type';

interface Import {
  specifier: string;
  kind: Kind;
}

/** The imports of a TypeScript module, read with TypeScript's parser. */
function importsOf(text: string): Import[] {
  const source = ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: node.importClause?.isTypeOnly ? 'type' : 'static' });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: node.isTypeOnly ? 'type' : 'static' });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, kind: 'type' });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument !== undefined && ts.isStringLiteralLike(argument)) found.push({ specifier: argument.text, kind: 'dynamic' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Edge {
  /** The importing file, relative to the repository (`runtime/host-device.ts`). */
  from: string;
  /** The imported file, relative to the repository, for a relative import; else the specifier (`yaml`, `node:fs`). */
  to: string;
  /** Whether `to` is a file of the repository (the import was relative). */
  local: boolean;
  kind: Kind;
}

/** Every import of every non-test source file of the layers. */
function importGraph(): Edge[] {
  const edges: Edge[] = [];
  for (const layer of LAYERS) {
    const files = readdirSync(path.join(ROOT, layer), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.bench.ts'))
      .map((file) => path.posix.join(layer, file.split(path.sep).join('/')));
    for (const from of files.sort()) {
      for (const { specifier, kind } of importsOf(readFileSync(path.join(ROOT, from), 'utf8'))) {
        const local = specifier.startsWith('./') || specifier.startsWith('../');
        edges.push({ from, to: local ? path.posix.join(path.posix.dirname(from), specifier) : specifier, local, kind });
      }
    }
  }
  return edges;
}

const layerOf = (file: string) => (LAYERS as readonly string[]).indexOf(file.split('/')[0]!);

/**
 * Whether an import points down: to a file of the importer's layer or one below, or to a package;
 * a Node built-in (`node:fs`, `fs`) from any layer but functions/, which runs beyond Node as well.
 */
function pointsDown({ from, to, local }: Edge): boolean {
  if (!local) return layerOf(from) > 0 || !(to.startsWith('node:') || BUILTINS.has(to));
  const target = layerOf(to);
  return target !== -1 && target <= layerOf(from);
}

/** Import cycles among `edges`: at least one per tangle, each as its files with the first repeated at the end. */
function cycles(edges: Pick<Edge, 'from' | 'to'>[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const found: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const walk = (file: string): void => {
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (stack.includes(to)) found.push([...stack.slice(stack.indexOf(to)), to]);
      else if (!done.has(to)) walk(to);
    }
    stack.pop();
    done.add(file);
  };
  for (const file of [...next.keys()].sort()) if (!done.has(file)) walk(file);
  return found;
}

/** A bundle entry (`*.entry.ts`): what esbuild.config.mjs builds into a lazily loaded dist/<name>.mjs. */
const isEntry = (file: string) => file.endsWith('.entry.ts');

/** The statements of a module that are not `export … from`. */
function ownStatements(text: string): string[] {
  const source = ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  return source.statements
    .filter((statement) => !(ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined))
    .map((statement) => statement.getText(source));
}

const graph = importGraph();
const show = (edge: Edge) => `${edge.from} → ${edge.to}${edge.kind === 'static' ? '' : ` (${edge.kind})`}`;

describe('source layers: functions/ ← runtime/ ← emulator/', () => {
  it('reads static, dynamic and type imports of the source (the graph is not empty)', () => {
    expect(graph).toContainEqual({ from: 'emulator/cli.ts', to: 'runtime/main.ts', local: true, kind: 'dynamic' });
    expect(graph).toContainEqual({ from: 'runtime/device/host-parts.ts', to: 'runtime/chutes/chute-lifecycle.entry.ts', local: true, kind: 'dynamic' });
    expect(graph).toContainEqual({ from: 'runtime/chutes/container-steps.ts', to: 'runtime/engine/docker.ts', local: true, kind: 'type' });
    expect(graph).toContainEqual({ from: 'emulator/app.ts', to: 'runtime/http/api.ts', local: true, kind: 'static' });
  });

  it('resolves every relative import to a file of the repository', () => {
    expect(graph.filter((edge) => edge.local && !existsSync(path.join(ROOT, edge.to))).map(show)).toEqual([]);
  });

  // A type import upward ties the lower layer to the upper one as much as a value import does.
  it('imports only downward: functions/ only functions/ and packages (no Node built-ins), runtime/ functions/ and runtime/, emulator/ all three; type imports count', () => {
    expect(graph.filter((edge) => !pointsDown(edge)).map(show)).toEqual([]);
  });

  // A cycle through types alone costs nothing at run time, but it still knots the modules into one
  // unit that no layer or bundle boundary can cut: type imports count here too.
  it('has no import cycle among the source files, through static, dynamic or type imports', () => {
    expect(cycles(graph.filter((edge) => edge.local)).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  // What a lazily loaded bundle holds is then what its entry gathers, and no module of the bundle
  // can reach back to the module that loads it (as host.ts ↔ hostapd-events.ts once did).
  it('has bundle entries (*.entry.ts) that only re-export, named by no import but a dynamic or type one', () => {
    const entries = [...new Set(graph.map((edge) => edge.from))].filter(isEntry);
    expect(entries).toContain('runtime/chutes/chute-lifecycle.entry.ts');
    expect(entries.flatMap((file) => ownStatements(readFileSync(path.join(ROOT, file), 'utf8')).map((statement) => `${file}: ${statement}`))).toEqual([]);
    expect(graph.filter((edge) => isEntry(edge.to) && edge.kind === 'static').map(show)).toEqual([]);
  });
});

describe('the checks of the layers', () => {
  it('reads every form of import, with its kind', () => {
    const text = [
      "import a, { b } from './a.ts';",
      "import type { C } from '../c.ts';",
      "import { type D } from './d.ts';",
      "export { e } from './e.ts';",
      "export type { F } from './f.ts';",
      "import 'yaml';",
      "let g: typeof import('./g.ts') | undefined;",
      "const h = () => import('./h.ts');",
      'const computed = (name: string) => import(name);',
    ].join('\n');
    expect(importsOf(text)).toEqual([
      { specifier: './a.ts', kind: 'static' },
      { specifier: '../c.ts', kind: 'type' },
      { specifier: './d.ts', kind: 'static' },
      { specifier: './e.ts', kind: 'static' },
      { specifier: './f.ts', kind: 'type' },
      { specifier: 'yaml', kind: 'static' },
      { specifier: './g.ts', kind: 'type' },
      { specifier: './h.ts', kind: 'dynamic' },
    ]);
  });

  it('finds an upward import, a built-in in functions/ and a cycle when there is one (the checks can fail)', () => {
    const edge = (from: string, to: string, local = true): Edge => ({ from, to, local, kind: 'type' });
    expect(pointsDown(edge('runtime/record/a.ts', 'emulator/b.ts'))).toBe(false);
    expect(pointsDown(edge('functions/core/a.ts', 'runtime/b.ts'))).toBe(false);
    expect(pointsDown(edge('functions/core/a.ts', 'test/b.ts'))).toBe(false);
    expect(pointsDown(edge('functions/core/a.ts', 'node:fs', false))).toBe(false);
    expect(pointsDown(edge('functions/core/a.ts', 'fs', false))).toBe(false);
    expect(pointsDown(edge('functions/core/a.ts', 'yaml', false))).toBe(true);
    expect(pointsDown(edge('runtime/a.ts', 'node:fs', false))).toBe(true);
    expect(pointsDown(edge('emulator/a.ts', 'functions/b.ts'))).toBe(true);
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])).toEqual([['a', 'b', 'c', 'a']]);
    expect(cycles([edge('a', 'b'), edge('a', 'c'), edge('b', 'c')])).toEqual([]);
    expect(ownStatements("/** doc */\nexport * from './a.ts';\nexport { b } from './b.ts';\nexport const c = 1;")).toEqual(['export const c = 1;']);
  });
});
