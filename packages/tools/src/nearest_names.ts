import { edit_distance } from './edit_distance.js';

/**
 * The names among `candidates` that `name` was likely meant to be, closest first, at most `most`
 * (default 3): case-insensitive, within `max_distance` edits (default: a third of the longer
 * length, at least 2), or, for a name of three letters or more, one that contains it (`conf` →
 * `config`, `file` → `read_file`). Ties keep the candidates' order.
 * The one "did you mean" rule of Lich: unknown tools, commands and config keys. Never throws.
 */
export function nearest_names(
  name: string,
  candidates: Iterable<string>,
  options: { most?: number; max_distance?: number } = {},
): string[] {
  const wanted = name.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  for (const candidate of candidates) {
    const lowered = candidate.toLowerCase();
    const limit =
      options.max_distance ?? Math.max(2, Math.floor(Math.max(wanted.length, lowered.length) / 3));
    const distance = edit_distance(wanted, lowered);
    if (distance <= limit) scored.push({ name: candidate, score: distance });
    else if (wanted.length >= 3 && lowered.includes(wanted)) {
      scored.push({ name: candidate, score: limit + 1 });
    }
  }
  scored.sort((a, b) => a.score - b.score);
  return scored.slice(0, options.most ?? 3).map((item) => item.name);
}

/** The single nearest name by the rule of `nearest_names`, or `undefined`. */
export function nearest_word(
  word: string,
  candidates: Iterable<string>,
  max_distance?: number,
): string | undefined {
  return nearest_names(word, candidates, {
    most: 1,
    ...(max_distance === undefined ? {} : { max_distance }),
  })[0];
}
