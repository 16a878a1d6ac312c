import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Import graph: file (relative to the root, `/`-separated) → the files it loads when it is evaluated. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const skipDirs = new Set(['node_modules', 'dist']);
const sourceFile = /\.tsx?$/;

/** Every `.ts` and `.tsx` file under the given folders (relative to root), skipping node_modules and dist. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skipDirs.has(entry.name)) walk(path);
      } else if (sourceFile.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  };
  for (const folder of folders) {
    const dir = join(root, folder);
    if (existsSync(dir)) walk(dir);
  }
  return files.map((f) => relative(root, f).split(sep).join('/')).sort();
}

/**
 * The module specifiers a file loads at run time: static `import … from`, side-effect `import '…'`
 * and `export … from`. Not `import type` / `export type`, which Node's type stripping erases whole.
 * `import { type A } from` is kept: stripping leaves `import {} from`, which still loads the module.
 * Dynamic `import()` is left out: it loads later and cannot make a cycle at evaluation.
 */
export function runtimeSpecifiers(fileName: string, text: string): string[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      if (statement.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

/** A relative specifier resolved to a file under root, or null for packages and built-in modules. */
function resolveSpecifier(root: string, from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(root, dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  const found = candidates.find((c) => sourceFile.test(c) && existsSync(c) && statSync(c).isFile());
  return found === undefined ? null : relative(root, found).split(sep).join('/');
}

/** The run-time import graph of the source files under the given folders. */
export function importGraph(root: string, folders: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root, folders)) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = runtimeSpecifiers(file, text)
      .map((s) => resolveSpecifier(root, file, s))
      .filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** Strongly connected components (Tarjan) that hold a cycle: two or more files, or a file importing itself. */
export function cyclicComponents(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest path inside a component from `start` back to itself (breadth first, neighbours in order). */
function shortestCycle(graph: ImportGraph, members: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (seen.has(to)) continue;
      seen.add(to);
      previous.set(to, node);
      queue.push(to);
    }
  }
  throw new Error(`no cycle through ${start}`);
}

/**
 * Every import cycle as text, `a.ts → b.ts → a.ts`: for each cyclic component, the shortest cycle
 * through its first file, then through the first file not yet named, until every file is in one.
 */
export function importCycles(graph: ImportGraph): string[] {
  const cycles: string[] = [];
  for (const component of cyclicComponents(graph)) {
    const members = new Set(component);
    const named = new Set<string>();
    for (const file of component) {
      if (named.has(file)) continue;
      const cycle = shortestCycle(graph, members, file);
      for (const f of cycle) named.add(f);
      cycles.push(cycle.join(' → '));
    }
  }
  return cycles;
}
