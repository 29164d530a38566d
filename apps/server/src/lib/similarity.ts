/**
 * Name similarity for the matching-payout guard (CONTRACT 7): lowercase, remove all whitespace
 * and Unicode punctuation, keep everything else (titles, Thai script), then
 * similarity = 1 - Levenshtein(a, b) / max(len a, len b), counted in code points.
 */

const REMOVED = /[\s\p{P}]/gu;

export function normalizeName(name: string): string {
  return name.toLowerCase().replace(REMOVED, "");
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
