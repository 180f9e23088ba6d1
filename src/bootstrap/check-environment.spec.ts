import { Module } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import { IsInt, Min } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../config/env';
import { checkEnvironment, configurationsOf } from './check-environment';

class RootEnv {
  @IsInt() @Min(1) ROOT_WORKERS: number = 1;
}
class FeatureEnv {
  @IsInt() @Min(1) FEATURE_BATCH: number = 1;
}
const rootConfig = registerAs('root', () => readEnv(RootEnv));
const featureConfig = registerAs('feature', () => readEnv(FeatureEnv));

@Module({ imports: [ConfigModule.forFeature(featureConfig)] })
class FeatureModule {}
@Module({ imports: [FeatureModule] })
class ParentModule {}
@Module({ imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [rootConfig] }), ParentModule, FeatureModule] })
class RootModule {}

async function problemsAt(env: Record<string, string>): Promise<string[]> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    await checkEnvironment(RootModule);
    return [];
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  } finally {
    for (const name of Object.keys(env)) if (!(name in saved)) delete process.env[name];
  }
}

describe('checkEnvironment', () => {
  it('when a module registers its configuration deep in the imports, then it is found once, beside the root ones', async () => {
    expect(await configurationsOf(RootModule)).toEqual([rootConfig, featureConfig]);
  });

  it("when the root's and a module's variables are both wrong, then one error names every problem", async () => {
    expect(await problemsAt({ ROOT_WORKERS: '0', FEATURE_BATCH: '0' })).toEqual([
      'ROOT_WORKERS: must not be less than 1',
      'FEATURE_BATCH: must not be less than 1',
    ]);
  });

  it('when every variable is right, then nothing is reported', async () => {
    expect(await problemsAt({ ROOT_WORKERS: '2', FEATURE_BATCH: '3' })).toEqual([]);
  });
});
