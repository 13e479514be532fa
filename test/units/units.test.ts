import test from 'ava';
import { DURATION_PATTERN, SIZE_PATTERN, durationSchema, formatDuration, formatSize, parseDuration, parseSize, sizeSchema } from '../../core/units.js';

test('durations in every documented notation', (t) => {
  const cases: Array<[string, number]> = [
    ['5ms', 5],
    ['1s', 1000],
    ['30s', 30_000],
    ['5m', 300_000],
    ['8h', 28_800_000],
    ['1d', 86_400_000],
    ['1m30s', 90_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['0s', 0],
    ['0', 0],
    [' 10s ', 10_000],
    ['250us', 0.25],
  ];
  for (const [text, ms] of cases) t.is(parseDuration(text), ms, text);
});

test('text that is not a duration', (t) => {
  for (const text of ['', '10', 's', '10 seconds', '5mins', '1h 30x', '-5s', 'soon', '1,5s', 'PT30S']) t.is(parseDuration(text), undefined, text);
});

test('sizes in binary, decimal and plain-byte notation', (t) => {
  const cases: Array<[string | number, number]> = [
    ['128MiB', 134_217_728],
    ['4GiB', 4_294_967_296],
    ['16MiB', 16_777_216],
    ['1KiB', 1024],
    ['1TiB', 1024 ** 4],
    ['1.5GiB', 1_610_612_736],
    ['1MB', 1_000_000],
    ['1048576', 1_048_576],
    [1_048_576, 1_048_576],
    ['64mib', 67_108_864],
    ['10B', 10],
  ];
  for (const [text, bytes] of cases) t.is(parseSize(text), bytes, String(text));
});

test('text that is not a size', (t) => {
  for (const text of ['', 'lots', '4 gigs', '-1', 'MiB', '1XB', '1.2.3MiB']) t.is(parseSize(text), undefined, text);
  t.is(parseSize(-1), undefined);
  t.is(parseSize(1.5), undefined);
});

test('durations and sizes print back in manifest notation', (t) => {
  t.is(formatDuration(0), '0s');
  t.is(formatDuration(1000), '1s');
  t.is(formatDuration(90_000), '1m30s');
  t.is(formatDuration(28_800_000), '8h');
  t.is(formatDuration(1500), '1s500ms');
  t.is(formatSize(134_217_728), '128MiB');
  t.is(formatSize(4 * 1024 ** 3), '4GiB');
  t.is(formatSize(1000), '1000B');
  for (const ms of [5, 1000, 90_000, 3_723_000]) t.is(parseDuration(formatDuration(ms)), ms);
});

test('the zod fields turn text into milliseconds and bytes, with the accepted forms in the message', (t) => {
  t.is(durationSchema().parse('30s'), 30_000);
  t.is(durationSchema().parse(0), 0);
  t.is(sizeSchema().parse('128MiB'), 134_217_728);
  const badDuration = durationSchema().safeParse('10 seconds');
  t.false(badDuration.success);
  t.is(badDuration.error?.issues[0]?.message, 'invalid duration "10 seconds": use a number with a unit, e.g. 500ms, 30s, 5m, 8h or 1m30s');
  const bareNumber = durationSchema().safeParse(30);
  t.is(bareNumber.error?.issues[0]?.message, 'invalid duration 30: use a number with a unit, e.g. 500ms, 30s, 5m, 8h or 1m30s');
  const badSize = sizeSchema().safeParse('4 gigs');
  t.is(badSize.error?.issues[0]?.message, 'invalid size "4 gigs": use a number with a binary unit, e.g. 128MiB, 4GiB or 1048576 (bytes)');
});

test('the JSON Schema patterns take exactly the forms the parsers take', (t) => {
  const duration = new RegExp(DURATION_PATTERN, 'u');
  for (const text of ['0', '500ms', '30s', ' 5m ', '8h', '1m30s', '1.5h', '2d', '10 s', '250us', '3µs', '7ns', '1h30m15s500ms', '', '30', '10 seconds', '5 min', '1m 30s', 's', '-1s', '1x', '0.5', '1h-', 'soon']) {
    t.is(duration.test(text), parseDuration(text) !== undefined, `duration ${JSON.stringify(text)}`);
  }
  const size = new RegExp(SIZE_PATTERN, 'u');
  for (const text of ['0', '1048576', '128MiB', '4GiB', '1.5GiB', '10kb', '2 MB', '3TiB', '7b', ' 64MiB ', '', 'lots', '4 gigs', '-1', '1.5', '12PiB', '1e6', 'MiB']) {
    t.is(size.test(text), parseSize(text) !== undefined, `size ${JSON.stringify(text)}`);
  }
});
