// The test environment of `npm test`'s check that starters and wrong answers are red (see
// scripts/exercise.js, EXERCISE_FAIL_FAST): once one test of a file has failed, the file is red,
// and its later tests (often the slow ones that restart processes) are skipped, not run.
'use strict';
const { TestEnvironment } = require('jest-environment-node');

class FailFastEnvironment extends TestEnvironment {
  failed = false;

  async handleTestEvent(event, state) {
    await super.handleTestEvent?.(event, state);
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') this.failed = true;
    if (event.name === 'test_start' && this.failed) event.test.mode = 'skip';
  }
}

module.exports = FailFastEnvironment;
