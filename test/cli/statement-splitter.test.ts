import test from 'ava';
import { StatementBuffer, splitStatements } from '../../cli/quarry/sql/statement-splitter.js';

test('splits on semicolons and drops them', (t) => {
  t.deepEqual(splitStatements('select 1; select 2;'), { statements: ['select 1', 'select 2'], remainder: '' });
  t.deepEqual(splitStatements('select 1; select 2'), { statements: ['select 1'], remainder: ' select 2' });
  t.deepEqual(splitStatements(';;  ;'), { statements: [], remainder: '' });
});

test('a semicolon inside a string, identifier, comment or dollar quote does not end a statement', (t) => {
  t.deepEqual(splitStatements("select 'a;b';").statements, ["select 'a;b'"]);
  t.deepEqual(splitStatements("select 'it''s; fine';").statements, ["select 'it''s; fine'"]);
  t.deepEqual(splitStatements('select 1 as "x;y";').statements, ['select 1 as "x;y"']);
  t.deepEqual(splitStatements('select 1 -- no; stop\n;').statements, ['select 1 -- no; stop']);
  t.deepEqual(splitStatements('select /* a; /* nested; */ b; */ 1;').statements, ['select /* a; /* nested; */ b; */ 1']);
  t.deepEqual(splitStatements('select $$a;b$$, $tag$c;$$d$tag$;').statements, ['select $$a;b$$, $tag$c;$$d$tag$']);
  t.deepEqual(splitStatements("select E'a\\';b';").statements, ["select E'a\\';b'"]);
});

test('a plain string ending in a backslash is not an escape string', (t) => {
  t.deepEqual(splitStatements("select 'C:\\'; select 2;").statements, ["select 'C:\\'", 'select 2']);
  // TYPE'...' is not E'...': the E ends a word.
  t.deepEqual(splitStatements("select TYPE'a\\'; select 2;").statements, ["select TYPE'a\\'", 'select 2']);
});

test('positional parameters are not dollar quotes', (t) => {
  t.deepEqual(splitStatements('select $1, $2;').statements, ['select $1, $2']);
});

test('comment-only text is no statement and leaves nothing pending', (t) => {
  t.deepEqual(splitStatements('-- just a note'), { statements: [], remainder: '' });
  t.deepEqual(splitStatements('select 1; -- trailing note'), { statements: ['select 1'], remainder: '' });
  t.deepEqual(splitStatements('/* note */ ;'), { statements: [], remainder: '' });
});

test('an unterminated string or block comment stays pending', (t) => {
  t.deepEqual(splitStatements("select 'abc;"), { statements: [], remainder: "select 'abc;" });
  t.deepEqual(splitStatements('/* open'), { statements: [], remainder: '/* open' });
});

test('the buffer collects lines until a statement ends, across lines', (t) => {
  const buffer = new StatementBuffer();
  t.true(buffer.isEmpty);
  t.deepEqual(buffer.push('select 1,'), []);
  t.false(buffer.isEmpty);
  t.deepEqual(buffer.push("  'x;"), []);
  t.deepEqual(buffer.push("y' as s;"), ["select 1,\n  'x;\ny' as s"]);
  t.true(buffer.isEmpty);
});

test('a line comment on one line does not swallow the next', (t) => {
  const buffer = new StatementBuffer();
  t.deepEqual(buffer.push('select 1 -- first'), []);
  t.deepEqual(buffer.push('+ 1;'), ['select 1 -- first\n+ 1']);
});

test('one line may complete several statements and start another', (t) => {
  const buffer = new StatementBuffer();
  t.deepEqual(buffer.push('select 1; select 2; select'), ['select 1', 'select 2']);
  t.false(buffer.isEmpty);
  t.deepEqual(buffer.push('3;'), ['select\n3']);
  buffer.push('select 4');
  buffer.clear();
  t.true(buffer.isEmpty);
});
