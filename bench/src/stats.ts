/** The median of `values` (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Runs `lich` and `baseline` alternately for `rounds` rounds (baseline first on even rounds, so
 * neither always runs warm) and returns the median time of each in milliseconds.
 */
export async function alternate(
  rounds: number,
  lich: () => Promise<void> | void,
  baseline: () => Promise<void> | void,
): Promise<{ lich_ms: number; baseline_ms: number; ratio: number }> {
  const lich_times: number[] = [];
  const baseline_times: number[] = [];
  const time = async (fn: () => Promise<void> | void, into: number[]) => {
    const start = performance.now();
    await fn();
    into.push(performance.now() - start);
  };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await time(baseline, baseline_times);
      await time(lich, lich_times);
    } else {
      await time(lich, lich_times);
      await time(baseline, baseline_times);
    }
  }
  const lich_ms = median(lich_times);
  const baseline_ms = median(baseline_times);
  return { lich_ms, baseline_ms, ratio: lich_ms / baseline_ms };
}
