import test from 'ava';
import { writeDecimalWords, writeInt64Words, writePaddedDigits, writeSafeInteger } from '../../../core/http/encoders/render/number-text.js';

const render = (write: (bytes: Uint8Array, position: number) => number): string => {
  const bytes = new Uint8Array(100);
  return Buffer.from(bytes.subarray(0, write(bytes, 0))).toString('latin1');
};

/** Words of a two's-complement integer, little-endian. */
function words(value: bigint, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let rest = BigInt.asUintN(count * 32, value);
  for (let i = 0; i < count; i++, rest >>= 32n) out[i] = Number(rest & 0xffffffffn);
  return out;
}

test('safe integers at every magnitude and sign', (t) => {
  for (const value of [0, 7, 10, 99, 100, 4294967295, 4294967296, 999999999999, 9007199254740991, -1, -4294967296, -9007199254740991]) {
    t.is(render((b, p) => writeSafeInteger(b, p, value)), String(value));
  }
});

test('padded digits of every width, including wider than nine', (t) => {
  t.is(render((b, p) => writePaddedDigits(b, p, 5, 2)), '05');
  t.is(render((b, p) => writePaddedDigits(b, p, 123, 6)), '000123');
  t.is(render((b, p) => writePaddedDigits(b, p, 123456789012345, 15)), '123456789012345');
  t.is(render((b, p) => writePaddedDigits(b, p, 42, 12)), '000000000042');
});

test('64-bit words inside and outside ±2^53', (t) => {
  for (const value of [0n, 1n, -1n, 9007199254740993n, -9007199254740993n, 9223372036854775807n, -9223372036854775808n]) {
    const w = words(value, 2);
    t.is(render((b, p) => writeInt64Words(b, p, w[0]!, w[1]! | 0, true)), value.toString());
  }
  const w = words(18446744073709551615n, 2);
  t.is(render((b, p) => writeInt64Words(b, p, w[0]!, w[1]!, false)), '18446744073709551615');
});

test('decimals: scales 0 to 15 on the fast path, and wide values through BigInt', (t) => {
  const cases: [bigint, number, string][] = [
    [0n, 2, '0.00'], [5n, 2, '0.05'], [-5n, 2, '-0.05'], [-1250n, 2, '-12.50'], [123456789012345n, 15, '0.123456789012345'],
    [9007199254740991n, 4, '900719925474.0991'], [9007199254740993n, 4, '900719925474.0993'], [-(10n ** 37n) - 1n, 10, '-1000000000000000000000000000.0000000001'],
    [170141183460469231731687303715884105727n, 0, '170141183460469231731687303715884105727'], [12345n, -2, '1234500'],
  ];
  for (const [value, scale, text] of cases) {
    t.is(render((b, p) => writeDecimalWords(b, p, words(value, 4), 0, 4, scale)), text, `${value} scale ${scale}`);
  }
  t.is(render((b, p) => writeDecimalWords(b, p, words(2n ** 128n - 1n, 8), 0, 8, 0)), (2n ** 128n - 1n).toString());
});
