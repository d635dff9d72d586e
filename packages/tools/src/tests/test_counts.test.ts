import { describe, expect, it } from 'vitest';
import { failure_section, parse_test_counts, strip_ansi } from './test_counts.js';

// summaries as the runners print them (vitest 4, node 20 TAP, pytest 8, cargo 1.8x recorded here)
const VITEST = `
 FAIL  a.test.mjs > bad
AssertionError: expected 1 to be 2 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed | 1 skipped (3)
   Start at  16:19:27
   Duration  629ms (transform 17ms, setup 0ms, import 26ms, tests 10ms, environment 0ms)
`;

const VITEST_COLOURED =
  '\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m2 failed\u001b[39m\u001b[22m\u001b[2m | ' +
  '\u001b[22m\u001b[1m\u001b[32m7 passed\u001b[39m\u001b[22m\u001b[90m (9)\u001b[39m\n';

const NODE_TAP = `not ok 2 - bad
1..3
# tests 3
# suites 0
# pass 1
# fail 1
# cancelled 0
# skipped 1
# todo 0
# duration_ms 239.869742
`;

const NODE_SPEC = 'ℹ tests 4\nℹ pass 3\nℹ fail 1\nℹ skipped 0\nℹ todo 0\n';

const PYTEST = `test_a.py ..Fs                                                           [100%]

=================================== FAILURES ===================================
___________________________________ test_bad ___________________________________

E   assert 1 == 2
=========================== short test summary info ============================
FAILED test_a.py::test_bad - assert 1 == 2
==================== 1 failed, 2 passed, 1 skipped in 1.05s ====================
`;

const CARGO = `running 3 tests
test tests::ok ... ok
test tests::skipped ... ignored
test tests::bad ... FAILED

failures:

---- tests::bad stdout ----
assertion \`left == right\` failed

failures:
    tests::bad

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.21s

running 2 tests
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
`;

const GO_VERBOSE = `=== RUN   TestOk
--- PASS: TestOk (0.00s)
=== RUN   TestBad
    a_test.go:5: want 2, got 1
--- FAIL: TestBad (0.00s)
=== RUN   TestSkip
--- SKIP: TestSkip (0.00s)
FAIL
FAIL\texample.com/m\t0.002s
`;

const GO_QUIET = `--- FAIL: TestBad (0.00s)
    a_test.go:5: want 2, got 1
FAIL
FAIL\texample.com/m/a\t0.002s
ok  \texample.com/m/b\t0.001s
ok  \texample.com/m/c\t(cached)
`;

describe('parse_test_counts', () => {
  it.each([
    ['vitest', VITEST, { passed: 1, failed: 1, skipped: 1 }],
    ['vitest', VITEST_COLOURED, { passed: 7, failed: 2, skipped: 0 }],
    [
      'jest',
      'Tests:       1 failed, 1 skipped, 10 passed, 12 total\nTime: 1s',
      { passed: 10, failed: 1, skipped: 1 },
    ],
    [
      'mocha',
      '  12 passing (20ms)\n  1 pending\n  2 failing\n',
      { passed: 12, failed: 2, skipped: 1 },
    ],
    ['node --test', NODE_TAP, { passed: 1, failed: 1, skipped: 1 }],
    ['node --test', NODE_SPEC, { passed: 3, failed: 1, skipped: 0 }],
    [
      'bun test',
      ' 5 pass\n 1 skip\n 2 fail\n 9 expect() calls\nRan 8 tests across 2 files. [20.00ms]\n',
      { passed: 5, failed: 2, skipped: 1 },
    ],
    ['pytest', PYTEST, { passed: 2, failed: 1, skipped: 1 }],
    ['pytest', '1 failed, 2 passed, 1 error in 0.30s\n', { passed: 2, failed: 2, skipped: 0 }],
    ['pytest', '===== 5 passed in 0.01s =====', { passed: 5, failed: 0, skipped: 0 }],
    ['cargo test', CARGO, { passed: 3, failed: 1, skipped: 1 }],
    ['go test', GO_VERBOSE, { passed: 1, failed: 1, skipped: 1 }],
    ['go test packages', GO_QUIET, { passed: 2, failed: 1, skipped: 0 }],
  ])('%s', (runner, output, counts) => {
    expect(parse_test_counts(output)).toEqual({ ...counts, runner });
  });

  it('adds up the summaries of a workspace run', () => {
    const output = ' Tests  2 passed (2)\n...\n Tests  1 failed | 4 passed (5)\n';
    expect(parse_test_counts(output)).toEqual({
      passed: 6,
      failed: 1,
      skipped: 0,
      runner: 'vitest',
    });
  });

  it('is undefined without a summary line', () => {
    expect(parse_test_counts('all good\nTests are fun\n')).toBeUndefined();
    expect(parse_test_counts('')).toBeUndefined();
  });
});

describe('failure_section', () => {
  it('starts at the failure report of the runner', () => {
    expect(failure_section(PYTEST)).toMatch(/^=+ FAILURES =+\n/);
    expect(failure_section(CARGO)).toMatch(/^failures:\n\n---- tests::bad/);
    expect(failure_section(GO_VERBOSE)).toMatch(/^--- FAIL: TestBad/);
    expect(failure_section(NODE_TAP)).toMatch(/^not ok 2 - bad/);
    const vitest = `✓ ok\n⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\n\n FAIL  a.test.ts > bad\n`;
    expect(failure_section(vitest)).toMatch(/^⎯⎯⎯ Failed Tests 1/);
  });

  it('is the whole output when no section is found, colours removed', () => {
    expect(failure_section('\u001b[31mboom\u001b[39m\n')).toBe('boom\n');
    expect(strip_ansi('\u001b[1ma\u001b[22m')).toBe('a');
  });
});
