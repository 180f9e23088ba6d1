/** What every project of the suite shares. */
const shared = {
  rootDir: '.',
  // The red check of the exercises' wrong answers stops a file at its first failure (scripts/exercise.js).
  testEnvironment: process.env.EXERCISE_FAIL_FAST
    ? '<rootDir>/test/exercises/support/fail-fast-environment.js'
    : 'node',
  transform: { '^.+\\.(ts|js|mjs)$': '<rootDir>/test/support/jest-transformer.js' },
  // ES-module packages must be compiled too; the transformer leaves CommonJS ones as they are.
  transformIgnorePatterns: [],
  slowTestThreshold: 20,
};

/**
 * The tests of the transport and the checkout that run a second time with OUTBOX_RELAY=logical, on
 * a private wal_level=logical cluster (ADR 0079): those whose outcome passes through the relay
 * that runs by itself. The rest stay polling-only: the files that drive the polling relay's claim
 * by hand (batch-jobs, delivery-faults, job-contents, lesson-handlers), or that are about what wakes
 * it (relay-wakeup, blocked-statements), or whose subject is not the relay (the steps, the reads, the
 * saga's own timers, email over SMTP cuts), so that the suite does not pay twice for what one relay
 * cannot change. docs/transport.md lists them too.
 */
const LOGICAL_LANE = [
  'transport/publishing.int-spec.ts',
  'transport/redis-loss.int-spec.ts',
  'transport/postgres-outage.int-spec.ts',
  'transport/replicas.int-spec.ts',
  'transport/rolling-deploy.int-spec.ts',
  'transport/maintenance.int-spec.ts',
  'transport/deployments.int-spec.ts',
  'transport/crashing-handler.int-spec.ts',
  'checkout/choreography.e2e-spec.ts',
  'checkout/orchestration.e2e-spec.ts',
  'checkout/idempotency.e2e-spec.ts',
  'checkout/dead-letters.e2e-spec.ts',
  // Money held after a failed checkout: the void that releases it goes through the relay.
  'checkout/held-authorization.e2e-spec.ts',
  // Its relay points only, in both modes (crash.e2e-spec.ts).
  'checkout/crash.e2e-spec.ts',
];

/**
 * The tests that run a second time with OUTBOX_DELIVERY=queue (ADR 0096): those whose outcome
 * passes through deliveries between modules of one process, which the default (the local bus)
 * makes without Redis, and this lane through the relay and the queues. The files about the queue
 * path itself (the relay's claim driven by hand, what a job carries, replicas' relays, an old
 * version's relay, a trace through the relay's process) say `queue` in their own apps' settings
 * (THROUGH_THE_QUEUES), and do not need the lane. docs/transport.md lists them too.
 */
const QUEUE_LANE = [
  'transport/publishing.int-spec.ts',
  'transport/redis-loss.int-spec.ts',
  'transport/postgres-outage.int-spec.ts',
  'transport/maintenance.int-spec.ts',
  'checkout/choreography.e2e-spec.ts',
  'checkout/orchestration.e2e-spec.ts',
  'checkout/idempotency.e2e-spec.ts',
  'checkout/dead-letters.e2e-spec.ts',
  'checkout/held-authorization.e2e-spec.ts',
  'checkout/email-across-cuts.e2e-spec.ts',
  'transport/crashing-handler.int-spec.ts',
  // The points of the crash matrix that depend on the way a message goes (crash.e2e-spec.ts).
  'checkout/crash.e2e-spec.ts',
  // Faults at random under load, and hosts cut apart: the promises of docs/guarantees.md on both paths.
  'chaos.e2e-spec.ts',
  'hosts/partitions.e2e-spec.ts',
  // The course's exercises that boot the app (02, 04 and 09 say `queue` themselves; 01, 14 and 15 boot none).
  ...[
    '03-the-wallet',
    '05-out-of-order',
    '06-poison-message',
    '07-redis-forgets',
    '08-design-the-saga',
    '10-compensation-fails',
    '11-the-tombstone',
    '12-the-dirty-read',
    '13-semantic-compensation',
    '16-query-before-compensating',
    '17-time-bound-compensation',
  ].map((exercise) => `exercises/${exercise}/${exercise}.spec.ts`),
];

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  maxWorkers: 2,
  // Every file boots the whole app, and a worker keeps part of each file's modules: past ~600 MB
  // it is slow to exit at the end. Recycling a worker above this keeps memory and the end clean.
  workerIdleMemoryLimit: '400MB',
  // Three projects share Jest's two workers in one run: `jest --selectProjects=polling` (or =logical, =queue)
  // runs one of them.
  projects: [
    {
      ...shared,
      displayName: 'polling',
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/bench/**/*.spec.ts',
        // The participants' unit tests beside their code; their HTTP tests are in test/participants/.
        '<rootDir>/participants/**/*.spec.ts',
        '<rootDir>/test/**/*.int-spec.ts',
        '<rootDir>/test/**/*.e2e-spec.ts',
        '<rootDir>/test/exercises/**/*.spec.ts',
        // The transport's and the steps' rules without the app (test/support/transport-rig.ts).
        '<rootDir>/test/unit/**/*.spec.ts',
        // Checks of the repository itself that boot nothing, such as the documentation's links.
        '<rootDir>/test/docs/**/*.spec.ts',
      ],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'logical',
      testMatch: LOGICAL_LANE.map((file) => `<rootDir>/test/${file}`),
      // Starts the cluster once for the lane (and its template database), and stops it at the end.
      globalSetup: '<rootDir>/test/support/logical-lane-setup.ts',
      globalTeardown: '<rootDir>/test/support/logical-lane-teardown.ts',
      // In each test file's own copy of the environment: its apps use that cluster and that relay.
      setupFiles: ['<rootDir>/test/support/logical-lane-env.ts'],
    },
    {
      ...shared,
      displayName: 'queue',
      testMatch: QUEUE_LANE.map((file) => `<rootDir>/test/${file}`),
      // The polling project's setup finds the template it built; its teardown cleans up for both.
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/queue-lane-env.ts'],
    },
  ],
};
