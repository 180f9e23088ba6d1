import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

const root = path.resolve(__dirname, '..');
const run = promisify(execFile);
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

async function exitCodeOf(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 10 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A throwaway tree with the project's rules, for planting violations without touching the real one. */
function plantedTree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'architecture-'));
  cpSync(path.join(root, '.dependency-cruiser.js'), path.join(dir, '.dependency-cruiser.js'));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'node20', moduleResolution: 'node16', strict: true } }),
  );
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

/** The files under src/ (tests aside) that import `name` from @nestjs/event-emitter. */
function eventEmitterImports(dir: string, name: string): string[] {
  const files = readdirSync(path.join(dir, 'src'), { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'),
  );
  const imported = new RegExp(
    `import\\s*{[^}]*\\b${name}\\b[^}]*}\\s*from\\s*['"]@nestjs\\/event-emitter['"]|require\\(\\s*['"]@nestjs\\/event-emitter['"]\\s*\\)\\.${name}\\b`,
  );
  return files.filter((file) => imported.test(readFileSync(path.join(dir, 'src', file), 'utf8')));
}

/**
 * The files that import EventEmitterModule. Its emitter would call the `@OnEvent` methods in
 * memory, outside the inbox, swallowing their errors: durable handlers are delivered by the outbox
 * only (the app also refuses to boot with it). Not a dependency-cruiser rule: `OnEvent` comes from
 * the same entry point, and the cruiser sees files, not names.
 */
const eventEmitterModuleImports = (dir: string) => eventEmitterImports(dir, 'EventEmitterModule');

/**
 * The files, but the outbox's own `OnEvent`, that take the library's `OnEvent` rather than the
 * outbox's: with it, a bare string or a payload that is not the contract's compiles (ADR 0092).
 */
const untypedOnEventImports = (dir: string) =>
  eventEmitterImports(dir, 'OnEvent').filter(
    (file) => file !== path.join('infra', 'outbox', 'consuming', 'on-event.ts'),
  );

/** The methods and helpers that send SQL: a repository's or a query's, in a `database/` folder. */
const SQL_CALLS = new Set([
  'query',
  'createQueryBuilder',
  'getRepository',
  'answerWithNext',
  'sendWithNext',
  'sendWithNextOn',
  'lockUntilCommit',
]);

/**
 * Where code in src/modules outside a `database/` folder runs SQL (`file:line name`): a call of a
 * method or helper of SQL_CALLS, or a reach for an entity manager (`.manager`). Statements live in
 * each module's database/ folder, in repositories and queries named for what they hold; the rest
 * of the module calls them. Read from the syntax tree, so that a comment or a string does not count.
 */
function sqlOutsideDatabase(dir: string): string[] {
  const modules = path.join(dir, 'src', 'modules');
  const files = readdirSync(modules, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.split(path.sep).includes('database'))
    .sort();
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(path.join(modules, file), 'utf8'), ts.ScriptTarget.Latest);
    const where = (node: ts.Node, name: string) =>
      `src/modules/${file.split(path.sep).join('/')}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${name}`;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const name = ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : ts.isIdentifier(callee)
            ? callee.text
            : undefined;
        if (name !== undefined && SQL_CALLS.has(name)) found.push(where(node, name));
      } else if (ts.isPropertyAccessExpression(node) && node.name.text === 'manager') {
        found.push(where(node, 'manager'));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

const cruise = (cwd: string, folders = ['src']) =>
  exitCodeOf(bin('depcruise'), [...folders, '--config', '.dependency-cruiser.js'], cwd);

describe('The architecture rules', () => {
  const planted: string[] = [];
  afterAll(() => planted.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const tree = (files: Record<string, string>) => {
    const dir = plantedTree(files);
    planted.push(dir);
    return dir;
  };

  it('when the real tree is checked, then no rule is broken', async () => {
    const { code, output } = await cruise(root);

    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });

  it('when a module imports another module through its index, then that is allowed', async () => {
    const dir = tree({
      'src/modules/billing/index.ts': "export const charge = () => 'charged';\n",
      'src/modules/checkout/start.ts': "import { charge } from '../billing';\nexport const start = () => charge();\n",
    });

    expect((await cruise(dir)).code).toBe(0);
  });

  it("when a module imports another module's internals, then the lint fails naming the rule", async () => {
    const dir = tree({
      'src/modules/billing/index.ts': "export * from './payments/payment.service';\n",
      'src/modules/billing/payments/payment.service.ts': 'export class PaymentService {}\n',
      'src/modules/checkout/start.ts':
        "import { PaymentService } from '../billing/payments/payment.service';\nexport const start = () => new PaymentService();\n",
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('module-internals');
    expect(output).toContain('src/modules/checkout/start.ts');
  });

  it('when shared infrastructure imports a module, then the lint fails', async () => {
    const dir = tree({
      'src/modules/billing/index.ts': 'export const billing = 1;\n',
      'src/infra/outbox/relay.ts': "import { billing } from '../../modules/billing';\nexport const relay = billing;\n",
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('infra-independent-of-modules');
  });

  it('when the publisher imports the relay, then the lint fails naming the rule', async () => {
    const dir = tree({
      'src/infra/outbox/relaying/outbox.relay.ts': 'export class OutboxRelay { wake(): void {} }\n',
      'src/infra/outbox/publishing/outbox.publisher.ts':
        "import { OutboxRelay } from '../relaying/outbox.relay';\nexport const relay = new OutboxRelay();\n",
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain(
      'outbox-in-the-order-data-flows: src/infra/outbox/publishing/outbox.publisher.ts → src/infra/outbox/relaying/outbox.relay.ts',
    );
  });

  it('when configuration imports a module or shared infrastructure, then the lint fails naming the rule', async () => {
    const dir = tree({
      'src/modules/checkout/checkout.config.ts': 'export const checkoutConfig = () => ({});\n',
      'src/infra/outbox/outbox.config.ts': 'export const outboxConfig = () => ({});\n',
      'src/config/index.ts':
        "import { checkoutConfig } from '../modules/checkout/checkout.config';\n" +
        "import { outboxConfig } from '../infra/outbox/outbox.config';\n" +
        'export const configFactories = [checkoutConfig, outboxConfig];\n',
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('config-at-the-bottom: src/config/index.ts → src/modules/checkout/checkout.config.ts');
    expect(output).toContain('config-at-the-bottom: src/config/index.ts → src/infra/outbox/outbox.config.ts');
  });

  it("when a participant's slice imports a sibling slice, then the lint fails naming the rule", async () => {
    const dir = tree({
      'src/modules/billing/authorize-payment/authorize-payment.reaction.ts':
        'export const authorizeKey = (checkoutId: string) => `${checkoutId}:billing.authorize-payment`;\n',
      'src/modules/billing/void-authorization/void-authorization.reaction.ts':
        "import { authorizeKey } from '../authorize-payment/authorize-payment.reaction';\nexport const voidKey = authorizeKey;\n",
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain(
      'no-cross-slice: src/modules/billing/void-authorization/void-authorization.reaction.ts → src/modules/billing/authorize-payment/authorize-payment.reaction.ts',
    );
  });

  it('when slices share what they share through a shared folder or the module root, then that is allowed', async () => {
    const dir = tree({
      'src/modules/billing/idempotency-keys.ts':
        'export const authorizeKey = (checkoutId: string) => `${checkoutId}:billing.authorize-payment`;\n',
      'src/modules/billing/domain/payment.ts': "export const voidable = (status: string) => status === 'authorized';\n",
      'src/modules/billing/void-authorization/void-authorization.reaction.ts':
        "import { voidable } from '../domain/payment';\nimport { authorizeKey } from '../idempotency-keys';\n" +
        'export const voidKey = (id: string, status: string) => (voidable(status) ? authorizeKey(id) : undefined);\n',
      'src/modules/billing/billing.module.ts':
        "import { voidKey } from './void-authorization/void-authorization.reaction';\nexport const keys = [voidKey];\n",
    });

    expect((await cruise(dir)).code).toBe(0);
  });

  it("when checkout reaches past a coordination style's door, or one style imports the other, then the lint fails naming the rule", async () => {
    const dir = tree({
      'src/modules/checkout/orchestration/index.ts': "export { Orchestrator } from './orchestrator';\n",
      'src/modules/checkout/orchestration/orchestrator.ts': 'export class Orchestrator {}\n',
      'src/modules/checkout/choreography/resume.ts':
        "import { Orchestrator } from '../orchestration';\nexport const resume = () => new Orchestrator();\n",
      'src/modules/checkout/start-checkout/start.ts':
        "import { Orchestrator } from '../orchestration/orchestrator';\nexport const start = () => new Orchestrator();\n",
      'src/modules/checkout/get-checkout/get.ts':
        "import { Orchestrator } from '../orchestration';\nexport const get = () => new Orchestrator();\n",
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain(
      'coordination-doors: src/modules/checkout/start-checkout/start.ts → src/modules/checkout/orchestration/orchestrator.ts',
    );
    expect(output).toContain(
      'coordination-styles-apart: src/modules/checkout/choreography/resume.ts → src/modules/checkout/orchestration/index.ts',
    );
    expect(output).not.toContain('get-checkout/get.ts');
  });

  it('when the benchmarks reach a module past its door, then the lint fails naming the rule', async () => {
    const dir = tree({
      'src/modules/billing/index.ts': "export { BillingApi } from './billing.api';\n",
      'src/modules/billing/billing.api.ts': 'export class BillingApi {}\n',
      'src/modules/billing/contracts/index.ts': "export const BILLING_STEPS = ['billing.authorize-payment'];\n",
      'src/modules/billing/authorize-payment/authorize-payment.use-case.ts': 'export class AuthorizePayment {}\n',
      'bench/peers/peer-steps.ts':
        "import { AuthorizePayment } from '../../src/modules/billing/authorize-payment/authorize-payment.use-case';\n" +
        'export const steps = [AuthorizePayment];\n',
      'bench/peers/peer-doors.ts':
        "import { BillingApi } from '../../src/modules/billing';\nimport { BILLING_STEPS } from '../../src/modules/billing/contracts';\n" +
        'export const doors = [BillingApi, BILLING_STEPS];\n',
    });

    const { code, output } = await cruise(dir, ['src', 'bench']);

    expect(code).not.toBe(0);
    expect(output).toContain(
      'bench-through-doors: bench/peers/peer-steps.ts → src/modules/billing/authorize-payment/authorize-payment.use-case.ts',
    );
    expect(output).not.toContain('peer-doors.ts');
    const real = await cruise(root, ['src', 'bench']);
    expect(real.output).toContain('no dependency violations found');
    expect(real.code).toBe(0);
  });

  it('when a participant imports the app, or the app a participant, then the lint fails naming the rule', async () => {
    const dir = tree({
      'src/infra/errors.ts': 'export const describeError = (error: unknown) => String(error);\n',
      'src/modules/billing/gateway/http-card-gateway.ts':
        "import { OPERATIONS } from '../../../../participants/card-gateway/domain/operations';\nexport const known = OPERATIONS;\n",
      'participants/card-gateway/domain/operations.ts': "export const OPERATIONS = ['authorize'];\n",
      'participants/card-gateway/main.ts':
        "import { describeError } from '../../src/infra/errors';\nexport const say = () => describeError(1);\n",
      'participants/card-gateway/service.ts':
        "import { OPERATIONS } from './domain/operations';\nexport const all = OPERATIONS;\n",
    });

    const { code, output } = await cruise(dir, ['src', 'participants']);

    expect(code).not.toBe(0);
    expect(output).toContain('participants-stand-apart: participants/card-gateway/main.ts → src/infra/errors.ts');
    expect(output).toContain(
      'src-stands-alone: src/modules/billing/gateway/http-card-gateway.ts → participants/card-gateway/domain/operations.ts',
    );
    expect(output).not.toContain('participants/card-gateway/service.ts');
    const real = await cruise(root, ['src', 'participants']);
    expect(real.output).toContain('no dependency violations found');
    expect(real.code).toBe(0);
  });

  it('when a participant imports another, or common imports a participant, then the lint fails; common itself may be imported', async () => {
    const dir = tree({
      'participants/common/lab/lab.ts': 'export class Lab {}\n',
      'participants/common/requests.ts':
        "import { OPERATIONS } from '../card-gateway/domain/operations';\nexport const routes = OPERATIONS;\n",
      'participants/card-gateway/domain/operations.ts': "export const OPERATIONS = ['authorize'];\n",
      'participants/card-gateway/lab.ts': "import { Lab } from '../common/lab/lab';\nexport const lab = new Lab();\n",
      'participants/fiscal-authority/main.ts':
        "import { OPERATIONS } from '../card-gateway/domain/operations';\nexport const borrowed = OPERATIONS;\n",
    });

    const { code, output } = await cruise(dir, ['participants']);

    expect(code).not.toBe(0);
    expect(output).toContain(
      'participants-stand-apart: participants/fiscal-authority/main.ts → participants/card-gateway/domain/operations.ts',
    );
    expect(output).toContain(
      'participants-stand-apart: participants/common/requests.ts → participants/card-gateway/domain/operations.ts',
    );
    expect(output).not.toContain('participants/card-gateway/lab.ts');
  });

  it('when domain code imports the database layer, then the lint fails', async () => {
    const dir = tree({
      'src/modules/billing/database/payment.entity.ts': 'export class PaymentEntity {}\n',
      'src/modules/billing/domain/payment.ts':
        "import { PaymentEntity } from '../database/payment.entity';\nexport const pay = () => new PaymentEntity();\n",
    });

    const { code, output } = await cruise(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('pure-domain');
  });

  it('when the app imports EventEmitterModule, then the architecture check names the file', () => {
    const dir = tree({
      'src/modules/billing/billing.module.ts':
        "import { Module } from '@nestjs/common';\nimport { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';\n" +
        '@Module({ imports: [EventEmitterModule.forRoot()] })\nexport class BillingModule {}\n',
      'src/modules/billing/payment.handler.ts':
        "import { OnEvent } from '@nestjs/event-emitter';\nexport { OnEvent };\n",
    });

    expect(eventEmitterModuleImports(dir)).toEqual([path.join('modules', 'billing', 'billing.module.ts')]);
    expect(eventEmitterModuleImports(root)).toEqual([]);
  });

  it("when a handler takes the library's @OnEvent rather than the outbox's, then the architecture check names the file", () => {
    const dir = tree({
      'src/infra/outbox/consuming/on-event.ts':
        "import { OnEvent as OnEventOfTheLibrary } from '@nestjs/event-emitter';\n",
      'src/infra/outbox/consuming/subscriptions.ts':
        "import { EVENT_LISTENER_METADATA } from '@nestjs/event-emitter';\n",
      'src/modules/billing/payment.handler.ts':
        "import { Injectable } from '@nestjs/common';\nimport { OnEvent } from '@nestjs/event-emitter';\n",
      'src/modules/content/access.handler.ts':
        "import { OnEvent } from '../../infra/outbox';\nimport { EVENT_LISTENER_METADATA } from '@nestjs/event-emitter';\n",
    });

    expect(untypedOnEventImports(dir)).toEqual([path.join('modules', 'billing', 'payment.handler.ts')]);
    expect(untypedOnEventImports(root)).toEqual([]);
  });

  it('when code outside a database/ folder of src/modules runs SQL, then the architecture check names the file', () => {
    const dir = tree({
      'src/modules/billing/authorize-payment/x.ts':
        "import { DataSource } from 'typeorm';\n" +
        'export class X {\n  constructor(private readonly dataSource: DataSource) {}\n' +
        "  run() {\n    return this.dataSource.query('SELECT 1');\n  }\n}\n",
      'src/modules/billing/authorize-payment/y.ts':
        "// this.dataSource.query('SELECT 1') in a comment, and in a string:\nexport const y = 'sendWithNext(tx)';\n",
      'src/modules/billing/database/payments.repository.ts':
        "export const find = (tx: { query(text: string): unknown }) => tx.query('SELECT 1');\n",
      'src/modules/checkout/orchestration/database/sagas.repository.ts':
        "import { answerWithNext } from '../../../../infra/database/one-write';\nexport const read = answerWithNext;\n",
      'src/modules/checkout/start-checkout/start.ts':
        "import { sendWithNext } from '../../../infra/database/one-write';\n" +
        "export const start = (tx: { manager: object }) => sendWithNext(tx.manager as never, 'INSERT', []);\n",
    });

    expect(sqlOutsideDatabase(dir)).toEqual([
      'src/modules/billing/authorize-payment/x.ts:5 query',
      'src/modules/checkout/start-checkout/start.ts:2 sendWithNext',
      'src/modules/checkout/start-checkout/start.ts:2 manager',
    ]);
    expect(sqlOutsideDatabase(root)).toEqual([]);
  });

  it("when a module's code names a table, then the table is in that module's own schema", () => {
    const schemas = ['identity', 'billing', 'content', 'notifications', 'checkout', 'outbox', 'auth'];
    const modulesDir = path.join(root, 'src/modules');
    const trespasses: string[] = [];
    for (const module of readdirSync(modulesDir)) {
      const files = readdirSync(path.join(modulesDir, module), { recursive: true, encoding: 'utf8' }).filter((f) =>
        f.endsWith('.ts'),
      );
      for (const file of files) {
        const source = readFileSync(path.join(modulesDir, module, file), 'utf8');
        const literals = source.match(/`[^`]*`|'[^'\n]*'/g) ?? [];
        for (const literal of literals) {
          for (const [, schema, table] of literal.matchAll(/(?<![@.\w])([a-z]+)\.([a-z_]+)\b(?![-.@])/g)) {
            if (schemas.includes(schema) && schema !== module) trespasses.push(`${module}/${file}: ${schema}.${table}`);
          }
        }
        for (const [, schema] of source.matchAll(/schema:\s*'([a-z]+)'/g)) {
          if (schema !== module) trespasses.push(`${module}/${file}: entity in schema ${schema}`);
        }
      }
    }

    expect(trespasses).toEqual([]);
  });

  it('when eslint and prettier check the tree, then they find nothing', async () => {
    const eslint = await exitCodeOf(bin('eslint'), ['.'], root);
    const prettier = await exitCodeOf(bin('prettier'), ['--check', '.'], root);

    expect(eslint.output).toBe('');
    expect(eslint.code).toBe(0);
    expect(prettier.code).toBe(0);
    // Type-aware lint of the whole tree: a minute or more when the rest of the suite shares the cores.
  }, 240_000);

  it('when TypeScript checks the tree, then it finds nothing', async () => {
    // Jest compiles without checking types: this is where a handler whose @OnEvent names no
    // contract, or takes another payload, fails the suite (src/infra/outbox/consuming/on-event.spec.ts).
    const tsc = await exitCodeOf(bin('tsc'), ['--noEmit', '-p', 'tsconfig.json'], root);

    expect(tsc.output).toBe('');
    expect(tsc.code).toBe(0);
  }, 240_000);
});
