/**
 * The architecture, checked: `npm run lint` fails when code crosses these lines.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'module-internals',
      comment:
        'A module reaches another module only through its index.ts (its Nest module and public API) and its contracts/ (the messages it publishes or accepts).',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$', '^src/modules/[^/]+/contracts/'],
      },
    },
    {
      name: 'no-cross-slice',
      comment:
        'Inside a participant module, a use case (a slice folder) imports nothing from another: what several slices share lives beside them, in contracts/, database/, domain/, an adapter folder (gateway/, invoicing/, mail/) or a file at the module root. Only billing, content, identity and notifications: checkout also shares core/, orchestration/ and choreography/ among its slices, and has rules of its own.',
      severity: 'error',
      from: {
        path: '^src/modules/(billing|content|identity|notifications)/([^/]+)/',
        pathNot: '^src/modules/[^/]+/(contracts|database|domain|gateway|invoicing|mail)/',
      },
      to: {
        path: '^src/modules/$1/[^/]+/',
        pathNot: ['^src/modules/$1/$2/', '^src/modules/$1/(contracts|database|domain|gateway|invoicing|mail)/'],
      },
    },
    {
      name: 'infra-independent-of-modules',
      comment: 'Shared infrastructure serves every module and knows none of them.',
      severity: 'error',
      from: { path: '^src/infra/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'outbox-in-the-order-data-flows',
      comment:
        'The transport reads in the order its data flows: publishing/ writes the outbox and knows nothing of what moves it on (relaying/), takes it in (consuming/) or records what failed (dead-letters/). What several stages share sits at src/infra/outbox/ itself.',
      severity: 'error',
      from: { path: '^src/infra/outbox/publishing/' },
      to: { path: '^src/infra/outbox/(relaying|consuming|dead-letters)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'config-at-the-bottom',
      comment:
        'src/config/ holds what every part shares and knows no part: a module or an infrastructure piece registers its own configuration where it lives (ConfigModule.forFeature).',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/(modules|infra)/' },
    },
    {
      name: 'coordination-doors',
      comment:
        "Inside checkout, orchestration/ and choreography/ are reached only through their index.ts (their door): the rest of the checkout registers them and reads the saga's log, nothing more.",
      severity: 'error',
      from: { path: '^src/modules/checkout/', pathNot: '^src/modules/checkout/(orchestration|choreography)/' },
      to: {
        path: '^src/modules/checkout/(orchestration|choreography)/',
        pathNot: '^src/modules/checkout/(orchestration|choreography)/index\\.ts$',
      },
    },
    {
      name: 'coordination-styles-apart',
      comment:
        'The two coordination styles share only the core (the table of steps, the progress recorder, the Mode they extend); neither imports the other.',
      severity: 'error',
      from: { path: '^src/modules/checkout/(orchestration|choreography)/' },
      to: { path: '^src/modules/checkout/(orchestration|choreography)/', pathNot: '^src/modules/checkout/$1/' },
    },
    {
      name: 'pure-domain',
      comment: 'Domain code (business rules, saga decisions) knows no framework, database, transport or HTTP.',
      severity: 'error',
      from: { path: '/domain/' },
      to: {
        path: [
          '^src/infra/',
          '/database/',
          '\\.(controller|handler|entity|module|repository|service)\\.ts$',
          'node_modules/(@nestjs|typeorm|pg|express|bullmq|ioredis|nestjs-cls|@nestjs-cls|nestjs-pino)/',
        ],
      },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes load order (and decorator metadata) depend on luck.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-stands-alone',
      comment:
        'The app never imports tests, benchmarks or scripts, nor the participants: it reaches those over HTTP, as it would reach the real ones.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts|participants)/' },
    },
    {
      name: 'participants-stand-apart',
      comment:
        "A participant (participants/<name>/) is a service of its own: it imports nothing of the app's, of another participant's, or of the tests', and keeps its own storage. What every participant is built of (the lab, request checks, start and migration) is in participants/common/, which each may import and which imports none of them.",
      severity: 'error',
      from: { path: '^participants/([^/]+)/' },
      to: { path: '^(src|test|bench|scripts|participants)/', pathNot: ['^participants/$1/', '^participants/common/'] },
    },
    {
      name: 'bench-through-doors',
      comment:
        "The benchmarks reach a module as any other module does: through its index.ts (its Nest module, its *Api door and the types of the door's answers) and its contracts/, never its use cases, steps or tables' code.",
      severity: 'error',
      from: { path: '^bench/' },
      to: {
        path: '^src/modules/',
        pathNot: ['^src/modules/[^/]+/index\\.ts$', '^src/modules/[^/]+/contracts/'],
      },
    },
    {
      name: 'resolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['require', 'import', 'node', 'default'],
      mainFields: ['main', 'types'],
    },
  },
};
