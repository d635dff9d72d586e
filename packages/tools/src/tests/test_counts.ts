/**
 * Reading test runners' summary lines: how many tests passed, failed and were skipped, and where
 * the failure report begins.
 */

/** Test counts read from a runner's summary. Errors (pytest, collection failures) count as failed. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** The runner whose summary was read (`vitest`, `jest`, `pytest`…). */
  runner: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with ESC
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g;

/** `text` without terminal colour and cursor codes. */
export function strip_ansi(text: string): string {
  return text.replace(ANSI, '');
}

type Tally = { passed: number; failed: number; skipped: number };

/** Adds `N word` parts (`2 failed, 10 passed`) to a tally. */
function add_parts(tally: Tally, text: string, words: { [word: string]: keyof Tally }): void {
  for (const match of text.matchAll(/(\d+) ([a-z]+)/gi)) {
    const key = words[match[2]!.toLowerCase()];
    if (key) tally[key] += Number(match[1]);
  }
}

function sum_lines(
  output: string,
  pattern: RegExp,
  words: { [word: string]: keyof Tally },
): Tally | undefined {
  let tally: Tally | undefined;
  for (const match of output.matchAll(pattern)) {
    tally ??= { passed: 0, failed: 0, skipped: 0 };
    add_parts(tally, match[1]!, words);
  }
  return tally;
}

const PARSERS: {
  runner: string;
  parse: (output: string) => (Tally & { runner?: string }) | undefined;
}[] = [
  {
    // " Tests  1 failed | 12 passed | 2 skipped (15)", one per project in a workspace run
    runner: 'vitest',
    parse: (output) =>
      sum_lines(output, /^\s*Tests {2,}(\d+ [a-z]+(?: \| \d+ [a-z]+)*) \(\d+\)\s*$/gm, {
        passed: 'passed',
        failed: 'failed',
        skipped: 'skipped',
        todo: 'skipped',
      }),
  },
  {
    // "Tests:       1 failed, 2 skipped, 10 passed, 13 total"
    runner: 'jest',
    parse: (output) =>
      sum_lines(output, /^Tests:\s+(.*\d+ total)\s*$/gm, {
        passed: 'passed',
        failed: 'failed',
        skipped: 'skipped',
        todo: 'skipped',
      }),
  },
  {
    // "  12 passing (20ms)", "  2 failing", "  1 pending"
    runner: 'mocha',
    parse: (output) =>
      sum_lines(output, /^\s+(\d+ (?:passing|failing|pending))\b/gm, {
        passing: 'passed',
        failing: 'failed',
        pending: 'skipped',
      }),
  },
  {
    // "# pass 5" (TAP) or "ℹ pass 5" (spec reporter)
    runner: 'node --test',
    parse: (output) => {
      let tally: Tally | undefined;
      for (const match of output.matchAll(/^(?:#|ℹ) (pass|fail|skipped|todo) (\d+)\s*$/gm)) {
        tally ??= { passed: 0, failed: 0, skipped: 0 };
        const count = Number(match[2]);
        if (match[1] === 'pass') tally.passed += count;
        else if (match[1] === 'fail') tally.failed += count;
        else tally.skipped += count;
      }
      return tally;
    },
  },
  {
    // " 5 pass", " 1 fail", " 2 skip" then "Ran 8 tests across 2 files."
    runner: 'bun test',
    parse: (output) =>
      /^Ran \d+ tests? across/m.test(output)
        ? sum_lines(output, /^\s*(\d+ (?:pass|fail|skip|todo))\s*$/gm, {
            pass: 'passed',
            fail: 'failed',
            skip: 'skipped',
            todo: 'skipped',
          })
        : undefined,
  },
  {
    // "==== 2 failed, 10 passed, 1 skipped in 0.12s ====" (or without the rules, with -q)
    runner: 'pytest',
    parse: (output) =>
      sum_lines(
        output,
        /^(?:=+ )?((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?|rerun)(?:, )?)+) in [\d.]+s\b/gm,
        {
          passed: 'passed',
          xpassed: 'passed',
          failed: 'failed',
          error: 'failed',
          errors: 'failed',
          skipped: 'skipped',
          xfailed: 'skipped',
        },
      ),
  },
  {
    // "test result: FAILED. 3 passed; 1 failed; 0 ignored; …", one per test binary
    runner: 'cargo test',
    parse: (output) =>
      sum_lines(output, /^test result: (?:ok|FAILED)\. (.*)$/gm, {
        passed: 'passed',
        failed: 'failed',
        ignored: 'skipped',
      }),
  },
  {
    // "--- PASS: TestX (0.00s)" with -v; without it only failures are listed, so the packages
    // ("ok  \texample.com/m", "FAIL\texample.com/m\t0.01s") are counted instead
    runner: 'go test',
    parse: (output) => {
      const count = (pattern: RegExp) => [...output.matchAll(pattern)].length;
      const passed = count(/^--- PASS: /gm);
      const failed = count(/^--- FAIL: /gm);
      const skipped = count(/^--- SKIP: /gm);
      const ok_packages = count(/^ok {2}\s*\S+/gm);
      const failed_packages = count(/^FAIL\s+\S+\s+[\d.]+s/gm);
      if (passed === 0 && ok_packages + failed_packages > 0) {
        return {
          passed: ok_packages,
          failed: failed_packages,
          skipped: 0,
          runner: 'go test packages',
        };
      }
      if (passed + failed + skipped === 0) return undefined;
      return { passed, failed, skipped };
    },
  },
];

/**
 * Reads the pass/fail counts from a test run's output. Runners recognised: vitest, jest, mocha,
 * node --test, bun test, pytest, cargo test, go test (per test with -v, else per package, as
 * runner `go test packages`). Several
 * summaries of one runner (a workspace, several test binaries) are added up.
 *
 * Contract: pure, never throws; `undefined` when no summary line is recognised.
 */
export function parse_test_counts(output: string): TestCounts | undefined {
  const text = strip_ansi(output).replace(/\r/g, '');
  for (const { runner, parse } of PARSERS) {
    const tally = parse(text);
    if (tally) return { runner, ...tally };
  }
  return undefined;
}

const FAILURE_MARKERS = [
  /Failed Tests? \d+/, // vitest's failure section
  /^\s*● /m, // jest's first failure
  /^=+ (?:FAILURES|ERRORS) =+$/m, // pytest
  /^failures:$/m, // cargo
  /^--- FAIL: /m, // go
  /^✖ failing tests:$/m, // node --test, spec reporter
  /^not ok \d+ /m, // node --test, TAP
  /^\s+\d+ failing$/m, // mocha
];

/**
 * The part of a test run's output that reports the failures: from the earliest failure section a
 * known runner prints to the end, or the whole output when none is found.
 *
 * Contract: pure, never throws; colour codes removed.
 */
export function failure_section(output: string): string {
  const text = strip_ansi(output).replace(/\r/g, '');
  let start = text.length;
  for (const marker of FAILURE_MARKERS) {
    const match = marker.exec(text);
    if (match && match.index < start) start = match.index;
  }
  if (start === text.length) return text;
  return text.slice(text.lastIndexOf('\n', start) + 1);
}
