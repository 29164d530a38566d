/**
 * Name similarity for the matching-payout guard (CONTRACT 7): lowercase, remove all whitespace
 * and Unicode punctuation, keep everything else (titles, Thai script), then
 * similarity = 1 - Levenshtein(a, b) / max(len a, len b), counted in code points. Names are
 * first put in Unicode's composed form (NFC), which changes no letter: "é" typed as e and an
 * accent is the one code point "é", so one name written two ways is still one name.
 */

const REMOVED = /[\s\p{P}]/gu;

export function normalizeName(name: string): string {
  return name.normalize("NFC").toLowerCase().replace(REMOVED, "");
}

/** Levenshtein distance over code points (not UTF-16 units), two rows of memory. */
export function levenshtein(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  if (left.length === 0) return right.length;
  if (right.length === 0) return left.length;
  let previous = Array.from({ length: right.length + 1 }, (_, i) => i);
  let current = new Array<number>(right.length + 1).fill(0);
  for (let i = 1; i <= left.length; i++) {
    current[0] = i;
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    [previous, current] = [current, previous];
  }
  return previous[right.length]!;
}

/** Similarity of two already-normalized names, from 0 to 1. Two empty names are identical. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(Array.from(a).length, Array.from(b).length);
  if (longest === 0) return 1;
  return 1 - levenshtein(a, b) / longest;
}

export function nameSimilarity(a: string, b: string): number {
  return similarity(normalizeName(a), normalizeName(b));
}

/**
 * Whether the Levenshtein distance of two code-point arrays is at most `bound`, computing only
 * the cells within `bound` of the diagonal (the others exceed it whatever follows) and stopping
 * as soon as a whole row exceeds it: the same answer as `levenshtein(a, b) <= bound`, in
 * O(length x bound) instead of O(length x length).
 */
export function withinDistance(left: readonly string[], right: readonly string[], bound: number): boolean {
  if (bound < 0) return false;
  if (Math.abs(left.length - right.length) > bound) return false;
  const over = bound + 1;
  const width = right.length + 1;
  let previous = new Array<number>(width);
  let current = new Array<number>(width);
  for (let j = 0; j < width; j++) previous[j] = j <= bound ? j : over;
  for (let i = 1; i <= left.length; i++) {
    const from = Math.max(1, i - bound);
    const to = Math.min(right.length, i + bound);
    current[0] = i <= bound ? i : over;
    if (from > 1) current[from - 1] = over;
    let rowMin = current[0]!;
    for (let j = from; j <= to; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost, over);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (to < right.length) current[to + 1] = over;
    if (rowMin > bound) return false;
    [previous, current] = [current, previous];
  }
  return previous[right.length]! <= bound;
}

/**
 * Whether two names' similarity (`nameSimilarity`) is strictly above `minimum`, without
 * computing the full distance: the largest distance that keeps the similarity above it is the
 * bound (found with the same arithmetic as `similarity`, so the answers are the same).
 */
export function namesSimilarAbove(a: string, b: string, minimum: number): boolean {
  const left = Array.from(normalizeName(a));
  const right = Array.from(normalizeName(b));
  const longest = Math.max(left.length, right.length);
  if (longest === 0) return 1 > minimum;
  let bound = longest;
  while (bound >= 0 && !(1 - bound / longest > minimum)) bound -= 1;
  return withinDistance(left, right, bound);
}
