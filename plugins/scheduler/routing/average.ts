import { BIGINT, BOOLEAN, DOUBLE, INTEGER, VARCHAR, DuckDBScalarFunction } from '@duckdb/node-api';
import { AVERAGE_FUNCTION } from './pushdown-statements.js';

/**
 * avg() over integers and decimals, finished from a sum and a count exactly as DuckDB finishes
 * it, so a pushed-down average equals the single-node one to the last bit. DuckDB keeps the
 * exact sum (a 128-bit integer) and divides in C `long double` (80-bit x87 on x86-64: a 64-bit
 * significand) for INTEGER / BIGINT / HUGEINT / wide DECIMAL arguments, and in `double` for
 * SMALLINT / DECIMAL(<=4, s). Plain double division differs from the long double result in
 * about one average in 4000 (the quotient rounded twice), so the 80-bit arithmetic is
 * reproduced here with BigInt.
 */

/** `sum / (count * 10^scale)` as DuckDB's IntegerAverageOperationHugeint / HugeintAverageOperation finish it. */
export function extendedAverage(sum: bigint, count: bigint, scale: number): number {
  if (sum === 0n) return 0;
  const negative = sum < 0n;
  // (long double)sum, (long double)count * (double)10^scale, their quotient: each rounded to 64 bits.
  const numerator = roundToBits(negative ? -sum : sum, 1n, 64);
  const divisor = roundToBits(count * 10n ** BigInt(scale), 1n, 64);
  const quotient = roundToBits(numerator.significand, divisor.significand, 64);
  // Then the long double is rounded to a double's 53 bits.
  const result = roundToBits(quotient.significand, 1n, 53);
  const value = Number(result.significand) * 2 ** (result.exponent + quotient.exponent + numerator.exponent - divisor.exponent);
  return negative ? -value : value;
}

/** `double(sum) / (double(count) * 10^scale)` as DuckDB's IntegerAverageOperation finishes it. */
export function doubleAverage(sum: bigint, count: bigint, scale: number): number {
  return Number(sum) / (Number(count) * 10 ** scale);
}

/**
 * `numerator / denominator` (both positive) rounded to nearest, ties to even, to a significand
 * of `bits` bits: the value is `significand * 2^exponent`.
 */
function roundToBits(numerator: bigint, denominator: bigint, bits: number): { significand: bigint; exponent: number } {
  const low = 1n << BigInt(bits - 1);
  const high = 1n << BigInt(bits);
  let exponent = numerator.toString(2).length - denominator.toString(2).length - bits;
  for (;;) {
    const scaledNumerator = exponent >= 0 ? numerator : numerator << BigInt(-exponent);
    const scaledDenominator = exponent >= 0 ? denominator << BigInt(exponent) : denominator;
    let significand = scaledNumerator / scaledDenominator;
    if (significand >= high) {
      exponent += 1;
      continue;
    }
    if (significand < low) {
      exponent -= 1;
      continue;
    }
    const twiceRemainder = 2n * (scaledNumerator % scaledDenominator);
    if (twiceRemainder > scaledDenominator || (twiceRemainder === scaledDenominator && (significand & 1n) === 1n)) significand += 1n;
    if (significand === high) {
      significand >>= 1n;
      exponent += 1;
    }
    return { significand, exponent };
  }
}

/** The unscaled integer of a decimal's text (`-12.30` at scale 2 → -1230n). */
export function unscaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const digits = `${whole}${fraction.padEnd(scale, '0').slice(0, scale)}`;
  const value = BigInt(digits === '' ? '0' : digits);
  return negative ? -value : value;
}

/**
 * `quarry_cluster_avg(sum_text, count, scale, extended)`: the merge's avg() from the combined
 * sum (as text, exact for HUGEINT and DECIMAL(38, s) alike) and count. NULL when the count is 0.
 */
export function averageFunction(): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name: AVERAGE_FUNCTION,
    returnType: DOUBLE,
    parameterTypes: [VARCHAR, BIGINT, INTEGER, BOOLEAN],
    mainFunction: (_info, input, output) => {
      const [sums, counts, scales, extended] = [0, 1, 2, 3].map((index) => input.getColumnVector(index));
      for (let row = 0; row < input.rowCount; row++) {
        const sum = sums!.getItem(row) as string | null;
        const count = counts!.getItem(row) as bigint | null;
        const scale = scales!.getItem(row) as number | null;
        const wide = extended!.getItem(row) as boolean | null;
        if (sum === null || count === null || scale === null || wide === null || count === 0n) {
          output.setItem(row, null);
          continue;
        }
        const total = unscaled(sum, scale);
        output.setItem(row, wide ? extendedAverage(total, count, scale) : doubleAverage(total, count, scale));
      }
      output.flush();
    },
  });
}
