/**
 * The benches' percentile: the nearest-rank method (the smallest value
 * with at least `q` of the values at or below it), as the benches report
 * p50 and p99.
 *
 * @param sorted values in ascending order
 * @param q the rank as a fraction, 0 < q ≤ 1 (0.99 for p99)
 * @returns the value, or NaN for no values
 */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}
