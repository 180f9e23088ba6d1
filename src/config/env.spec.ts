import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EnvBoolean, EnvList, InvalidEnvironmentError, readEnv } from './env';

class ExampleEnv {
  @IsInt() @Min(1) WORKERS: number = 4;
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) VERBOSE: boolean = false;
  @EnvList() @IsIn(['a', 'b'], { each: true }) LETTERS: string[] = ['a'];
}

class SecretEnv {
  @IsOptional() @IsString() PASSWORD?: string = undefined;
}

const fileWith = (content: string): string => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'env-')), 'secret');
  writeFileSync(file, content);
  return file;
};

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

  it('when NAME_FILE names a file, then its content, without its last line break, is the value', () => {
    expect(readEnv(SecretEnv, { PASSWORD_FILE: fileWith('s3cret value\n') })).toEqual({ PASSWORD: 's3cret value' });
  });

  it('when both NAME and NAME_FILE are set, then the app refuses to start, naming both', () => {
    expect(() => readEnv(SecretEnv, { PASSWORD: 'a', PASSWORD_FILE: fileWith('b') })).toThrow(
      'PASSWORD: set either PASSWORD or PASSWORD_FILE, not both',
    );
  });

  it('when NAME_FILE names a file that cannot be read, then the problem names the variable and the file', () => {
    expect(() => readEnv(SecretEnv, { PASSWORD_FILE: '/nonexistent/secret' })).toThrow(
      'PASSWORD_FILE: cannot read /nonexistent/secret (ENOENT)',
    );
  });
});
