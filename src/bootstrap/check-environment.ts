import type { DynamicModule, ForwardReference, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { ConfigModule } from '@nestjs/config';
import { InvalidEnvironmentError } from '../config/env';

type Import = Type | DynamicModule | Promise<DynamicModule> | ForwardReference;
type ConfigFactory = (() => unknown) & { KEY: string };

/**
 * Every configuration the app will load, found where it is registered: the root ones in
 * `ConfigModule.forRoot`, each module's own in its `ConfigModule.forFeature`. A module that adds a
 * configuration is checked at start without being listed anywhere else.
 */
export async function configurationsOf(root: Type): Promise<ConfigFactory[]> {
  const seen = new Set<unknown>();
  const found = new Set<ConfigFactory>();
  const visit = async (entry: Import | undefined): Promise<void> => {
    if (!entry || seen.has(entry)) return;
    seen.add(entry);
    const resolved = 'forwardRef' in entry ? entry.forwardRef() : await entry;
    const dynamic = 'module' in resolved ? resolved : undefined;
    const moduleClass = dynamic?.module ?? (resolved as Type);
    if (moduleClass === ConfigModule) {
      for (const provider of dynamic?.providers ?? []) {
        const factory = (provider as { useFactory?: Partial<ConfigFactory> }).useFactory;
        // registerAs names its factory by KEY, and ConfigModule provides it under that token.
        if (factory?.KEY && (provider as { provide?: unknown }).provide === factory.KEY) {
          found.add(factory as ConfigFactory);
        }
      }
    }
    const imports: Import[] = [
      ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass) as Import[] | undefined) ?? []),
      ...((dynamic?.imports as Import[] | undefined) ?? []),
    ];
    for (const imported of imports) await visit(imported);
  };
  await visit(root);
  return [...found];
}

/** Every variable is checked before anything starts, and all problems are reported at once. */
export async function checkEnvironment(root: Type): Promise<void> {
  const problems = (await configurationsOf(root)).flatMap((load) => {
    try {
      load();
      return [];
    } catch (error) {
      if (error instanceof InvalidEnvironmentError) return error.problems;
      throw error;
    }
  });
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);
}
