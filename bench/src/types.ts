/** One line of the benchmark table. */
export interface BenchRow {
  /** The benchmark's name, e.g. `loop`. */
  bench: string;
  /** What was measured, e.g. `overhead per turn, 1000 msgs`. */
  metric: string;
  /** Lich's median, in `unit`. */
  lich: number;
  /** The baseline's median, in `unit`, when there is one. */
  baseline?: number;
  /** What the baseline is, e.g. `eventsource-parser`. */
  baseline_name?: string;
  unit: string;
  /** lich / baseline (or the figure the target is stated in). */
  ratio?: number;
  /** The target, in words, e.g. `ratio <= 1.5`. */
  target?: string;
  /** Whether the target was met. */
  pass?: boolean;
}

/**
 * A benchmark module: `run` measures and returns its rows. One with `cases` runs only the cases
 * it is given, when given any (all otherwise).
 */
export interface BenchModule {
  cases?: readonly string[];
  run(cases?: readonly string[]): Promise<BenchRow[]>;
}
