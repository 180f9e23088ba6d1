import { IsBoolean, IsIn, IsInt, Min } from 'class-validator';
import { EnvBoolean, EnvList, InvalidEnvironmentError, readEnv } from './env';

class ExampleEnv {
  @IsInt() @Min(1) WORKERS: number = 4;
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) VERBOSE: boolean = false;
  @EnvList() @IsIn(['a', 'b'], { each: true }) LETTERS: string[] = ['a'];
}

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    readEnv(ExampleEnv, env);
    return [];
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  }
}

describe('readEnv', () => {
  it('when nothing is set, then every default applies', () => {
    expect(readEnv(ExampleEnv, {})).toEqual({ WORKERS: 4, VERBOSE: false, LETTERS: ['a'] });
  });

  it('when values are set, then they are converted to their declared types', () => {
    expect(readEnv(ExampleEnv, { WORKERS: '12', VERBOSE: 'yes', LETTERS: 'a, b' })).toEqual({
      WORKERS: 12,
      VERBOSE: true,
      LETTERS: ['a', 'b'],
    });
  });

  it('when a value is empty, then the default applies', () => {
    expect(readEnv(ExampleEnv, { WORKERS: '' }).WORKERS).toBe(4);
  });

  it('when values are wrong, then each problem names its variable, without the value', () => {
    const problems = problemsOf({ WORKERS: 'many', VERBOSE: 'perhaps', LETTERS: 'a,z' });

    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^WORKERS: /);
    expect(problems[1]).toBe('VERBOSE: must be true or false');
    expect(problems[2]).toMatch(/^LETTERS: /);
    expect(problems.join(' ')).not.toContain('perhaps');
  });

  it('when a variable is not declared, then it is ignored', () => {
    expect(readEnv(ExampleEnv, { SOMETHING_ELSE: 'x' })).toEqual({ WORKERS: 4, VERBOSE: false, LETTERS: ['a'] });
  });
});
