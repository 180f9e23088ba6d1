import type { MigrationInterface } from 'typeorm';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EntityClass = new (...args: any[]) => object;
type MigrationClass = new () => MigrationInterface;

export interface DatabaseFeature {
  /** Entities of one schema. */
  entities?: EntityClass[];
  /** That schema's migrations; the first one creates the schema. */
  migrations?: MigrationClass[];
}

const entities = new Set<EntityClass>();
const migrations = new Set<MigrationClass>();

/**
 * Each module registers its own entities and migrations when its Nest module is declared, the way
 * `TypeOrmModule.forFeature` feeds `autoLoadEntities`. The composition root never lists another
 * module's tables, and infrastructure never imports a module.
 */
export function registerDatabaseFeature(feature: DatabaseFeature): void {
  feature.entities?.forEach((entity) => entities.add(entity));
  feature.migrations?.forEach((migration) => migrations.add(migration));
}

export function registeredEntities(): EntityClass[] {
  return [...entities];
}

export function registeredMigrations(): MigrationClass[] {
  return [...migrations];
}
