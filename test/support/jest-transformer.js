// Jest's module registry cannot require() an ES module on Node 20, and NestJS 12 ships as ES
// modules (the app itself loads them through Node's own require(esm)). So, in tests only, this
// transformer compiles our TypeScript with SWC, and compiles the ES-module packages in
// node_modules to CommonJS; CommonJS packages pass through untouched. See docs/adr/0002.
'use strict';
const { transformSync, version: swcVersion } = require('@swc/core');
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const packageTypes = new Map();

function packageTypeOf(directory) {
  if (packageTypes.has(directory)) return packageTypes.get(directory);
  let type;
  try {
    type = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')).type ?? 'commonjs';
  } catch {
    const parent = path.dirname(directory);
    type = parent === directory ? 'commonjs' : packageTypeOf(parent);
  }
  packageTypes.set(directory, type);
  return type;
}

function isEsModule(filename) {
  if (filename.endsWith('.mjs')) return true;
  if (filename.endsWith('.cjs')) return false;
  return packageTypeOf(path.dirname(filename)) === 'module';
}

/** How TypeScript is compiled, for Jest here and for the child apps' compiled tree (compiled.ts). */
const typescript = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const esModule = {
  jsc: { parser: { syntax: 'ecmascript' }, target: 'es2023', keepClassNames: true },
  module: { type: 'commonjs', ignoreDynamic: false },
};

/** What `import.meta` means, said in CommonJS. */
function withoutImportMeta(source) {
  return source
    .replace(/\bimport\.meta\.url\b/g, 'module.require("node:url").pathToFileURL(__filename).href')
    .replace(/\bimport\.meta\.resolve\(/g, 'module.require.resolve(')
    .replace(/\bimport\.meta\.dirname\b/g, '__dirname')
    .replace(/\bimport\.meta\.filename\b/g, '__filename');
}

module.exports = {
  typescript,
  process(source, filename) {
    if (/\.tsx?$/.test(filename)) {
      const { code, map } = transformSync(source, { ...typescript, filename });
      return { code, map };
    }
    if (!isEsModule(filename)) return { code: source };
    const { code } = transformSync(withoutImportMeta(source), { ...esModule, filename });
    return { code };
  },
  getCacheKey(source, filename, options) {
    return createHash('sha1')
      .update(swcVersion)
      .update('\0')
      .update(filename)
      .update('\0')
      .update(source)
      .update('\0')
      .update(options.configString)
      .update(readFileSync(__filename))
      .digest('hex');
  },
};
