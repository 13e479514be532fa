import test from 'ava';
import { parseDotenv } from '../../core/secrets/dotenv.js';

test('KEY=value lines, export, comments, quotes and escapes', (t) => {
  const values = parseDotenv(
    [
      '# a comment',
      'PLAIN=value',
      'export EXPORTED=yes',
      'SPACED = padded  ',
      'INLINE=abc # trailing comment',
      'HASH_IN_VALUE=abc#def',
      "SINGLE='literal \\n $x'",
      'DOUBLE="line1\\nline2 \\"quoted\\""',
      'EMPTY=',
      'not a line',
      'WINDOWS=crlf\r',
    ].join('\n'),
  );
  t.deepEqual(Object.fromEntries(values), {
    PLAIN: 'value',
    EXPORTED: 'yes',
    SPACED: 'padded',
    INLINE: 'abc',
    HASH_IN_VALUE: 'abc#def',
    SINGLE: 'literal \\n $x',
    DOUBLE: 'line1\nline2 "quoted"',
    EMPTY: '',
    WINDOWS: 'crlf',
  });
});

test('a double-quoted value may span lines, so a PEM key fits', (t) => {
  const values = parseDotenv('TLS_KEY="-----BEGIN PRIVATE KEY-----\nMIIEvg\n-----END PRIVATE KEY-----"\nNEXT=1\n');
  t.is(values.get('TLS_KEY'), '-----BEGIN PRIVATE KEY-----\nMIIEvg\n-----END PRIVATE KEY-----');
  t.is(values.get('NEXT'), '1');
});

test('a later line wins over an earlier one', (t) => {
  t.is(parseDotenv('A=1\nA=2\n').get('A'), '2');
});
