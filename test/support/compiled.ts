import { type Options, transformSync, version as swcVersion } from '@swc/core';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * Where the compiled tree lives: beside the packages it requires, which Node finds by walking up
 * to the project's node_modules; in a folder named after this checkout, for a node_modules that
 * several checkouts share. Files are written to a temporary name and renamed, so that two runs
 * compiling at once never see half a file (and a node_modules of hard links, copied from another
 * checkout's, is never written through).
 */
export const COMPILED_ROOT = path.join(
  root,
  'node_modules',
  '.cache',
  'compiled-app',
  createHash('sha1').update(root).digest('hex').slice(0, 12),
);

/** Node's cache of the compiled code's bytecode, for the processes that run it (NODE_COMPILE_CACHE). */
export const NODE_COMPILE_CACHE_DIR = path.join(root, 'node_modules', '.cache', 'node-compile-cache');

/** What is compiled: the app and the tests' support, but not the specs, which Jest runs itself. */
const TREES = ['src', path.join('test', 'support'), path.join('test', 'exercises')];
const isSource = (file: string) => file.endsWith('.ts') && !/\.(d|spec|int-spec|e2e-spec)\.ts$/.test(file);

/** Folders that the code finds through __dirname (the console's files, the benchmarks' results). */
const LINKED = ['console', 'bench'];

// The same compilation as the tests' own (the transformer's options), so both run the same code.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { typescript: options } = require('./jest-transformer') as { typescript: Options };

function writeAtomically(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}

/**
 * Compiles the app's and the tests' TypeScript to CommonJS under COMPILED_ROOT, as the Jest
 * transformer does, for child processes that would otherwise load each file through a require
 * hook. Only the files whose source changed since the last call are compiled again (a learner's
 * edited answer, say): a manifest keeps each source's hash. Returns the number compiled.
 */
export function compileTree(): number {
  const manifestFile = path.join(COMPILED_ROOT, 'manifest.json');
  const compiler = `${swcVersion} ${JSON.stringify(options)}`;
  let manifest: { compiler: string; files: Record<string, string> } = { compiler, files: {} };
  try {
    const read = JSON.parse(readFileSync(manifestFile, 'utf8')) as typeof manifest;
    if (read.compiler === compiler) manifest = read;
  } catch {
    // none yet, or unreadable: compile everything
  }
  mkdirSync(COMPILED_ROOT, { recursive: true });
  for (const folder of LINKED) {
    const link = path.join(COMPILED_ROOT, folder);
    try {
      if (!existsSync(link)) symlinkSync(path.join(root, folder), link);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }

  let compiled = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
        continue;
      }
      if (!isSource(file)) continue;
      const relative = path.relative(root, file);
      const output = path.join(COMPILED_ROOT, relative.replace(/\.ts$/, '.js'));
      const source = readFileSync(file, 'utf8');
      const hash = createHash('sha1').update(source).digest('hex');
      if (manifest.files[relative] === hash && existsSync(output)) continue;
      let code: string;
      try {
        ({ code } = transformSync(source, { ...options, filename: file }));
      } catch (error) {
        throw new Error(`${relative} does not compile:\n${String(error)}`, { cause: error });
      }
      mkdirSync(path.dirname(output), { recursive: true });
      writeAtomically(output, code);
      manifest.files[relative] = hash;
      compiled++;
    }
  };
  for (const tree of TREES) walk(path.join(root, tree));
  if (compiled > 0) writeAtomically(manifestFile, JSON.stringify(manifest));
  return compiled;
}

/** The compiled file of a TypeScript source of the project (after compileTree). */
export function compiledPath(file: string): string {
  const relative = path.relative(root, file);
  if (relative.startsWith('..') || !isSource(file)) throw new Error(`${file} is not compiled by compileTree`);
  return path.join(COMPILED_ROOT, relative.replace(/\.ts$/, '.js'));
}
