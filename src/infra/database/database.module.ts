import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { databaseConfig, DatabaseConfig } from '../../config/database.config';
import { dataSourceOptions } from './data-source.options';
import { DatabaseConnector } from './database.connector';
import { DatabaseFeature, registerDatabaseFeature } from './database.registry';

@Module({})
class DatabaseFeatureModule {}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [databaseConfig.KEY],
          // The connector initialises the data source, so that a missing Postgres does not stop the app.
          useFactory: (config: DatabaseConfig) => ({ ...dataSourceOptions(config), manualInitialization: true }),
        }),
      ],
      providers: [DatabaseConnector],
      exports: [DatabaseConnector],
    };
  }

  /** Declares a module's entities and migrations; see `registerDatabaseFeature`. */
  static forFeature(feature: DatabaseFeature): DynamicModule {
    registerDatabaseFeature(feature);
    return { module: DatabaseFeatureModule };
  }
}
