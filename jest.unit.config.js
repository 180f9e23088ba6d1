// `npm run test:unit`: the specs that boot no app, for a fast inner loop. The unit specs beside
// the code, the benchmark's and the documentation's checks, and the transport's and the steps'
// rules (test/unit/), over real Postgres and Redis but without Nest. Every one of them also runs
// in `npm test`.
const { projects, ...base } = require('./jest.config');
// The polling project's settings, without its files and its global setup: the suite's is a project
// of its own, and a config with `projects` would run those, not the files below.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const { displayName, testMatch, globalSetup, ...shared } = projects.find((p) => p.displayName === 'polling');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  ...shared,
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/bench/**/*.spec.ts',
    '<rootDir>/participants/**/*.spec.ts',
    '<rootDir>/test/docs/**/*.spec.ts',
    '<rootDir>/test/unit/**/*.spec.ts',
  ],
  // No template database: nothing here migrates the app's schemas.
  globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
};
