/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  // The red check of the exercises' wrong answers stops a file at its first failure (scripts/exercise.js).
  testEnvironment: process.env.EXERCISE_FAIL_FAST
    ? '<rootDir>/test/exercises/support/fail-fast-environment.js'
    : 'node',
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/bench/**/*.spec.ts',
    '<rootDir>/test/**/*.int-spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
    '<rootDir>/test/exercises/**/*.spec.ts',
    // The transport's and the steps' rules without the app (test/support/transport-rig.ts).
    '<rootDir>/test/unit/**/*.spec.ts',
    // Checks of the repository itself that boot nothing, such as the documentation's links.
    '<rootDir>/test/docs/**/*.spec.ts',
  ],
  transform: { '^.+\\.(ts|js|mjs)$': '<rootDir>/test/support/jest-transformer.js' },
  // ES-module packages must be compiled too; the transformer leaves CommonJS ones as they are.
  transformIgnorePatterns: [],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60_000,
  slowTestThreshold: 20,
  maxWorkers: 2,
  // Every file boots the whole app, and a worker keeps part of each file's modules: past ~600 MB
  // it is slow to exit at the end. Recycling a worker above this keeps memory and the end clean.
  workerIdleMemoryLimit: '400MB',
};
