/** A ranked match of one method, identified by its row. */
export interface RankedMatch<T> {
  readonly row: string;
  readonly item: T;
}

/** The usual reciprocal rank fusion constant: damps the weight of the very first ranks. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each row scores the sum of 1 / (k + rank) over the lists it appears
 * in (rank from 1), so a row ranked well by both full-text and vector search comes first
 * whatever the scales of their scores. Returns rows best first, with the lists' items merged.
 */
export function reciprocalRankFusion<T>(lists: ReadonlyArray<ReadonlyArray<RankedMatch<T>>>, merge: (items: T[]) => T, k = RRF_K): Array<{ row: string; item: T; score: number }> {
  const fused = new Map<string, { items: T[]; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((match, index) => {
      const entry = fused.get(match.row) ?? { items: [], score: 0, first: order++ };
      entry.items.push(match.item);
      entry.score += 1 / (k + index + 1);
      fused.set(match.row, entry);
    });
  }
  return [...fused.entries()]
    .sort(([, a], [, b]) => b.score - a.score || a.first - b.first)
    .map(([row, entry]) => ({ row, item: merge(entry.items), score: entry.score }));
}
