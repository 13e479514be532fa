/**
 * A strict JSON parser for tests that keeps numbers as their exact text (JSON.parse would
 * round 64-bit integers and decimals) and rejects anything RFC 8259 does not allow.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type ExactJson = null | boolean | string | JsonNumber | ExactJson[] | { [key: string]: ExactJson };

export const num = (text: string | number | bigint): JsonNumber => new JsonNumber(String(text));

export function parseExactJson(text: string): ExactJson {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`);
  };
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const value = (): ExactJson => {
    space();
    const char = text[at];
    if (char === '{') {
      at++;
      const object: { [key: string]: ExactJson } = {};
      space();
      if (text[at] === '}') return at++, object;
      for (;;) {
        space();
        if (text[at] !== '"') fail('expected key');
        const key = string();
        space();
        if (text[at++] !== ':') fail('expected :');
        object[key] = value();
        space();
        if (text[at] === ',') at++;
        else if (text[at] === '}') return at++, object;
        else fail('expected , or }');
      }
    }
    if (char === '[') {
      at++;
      const array: ExactJson[] = [];
      space();
      if (text[at] === ']') return at++, array;
      for (;;) {
        array.push(value());
        space();
        if (text[at] === ',') at++;
        else if (text[at] === ']') return at++, array;
        else fail('expected , or ]');
      }
    }
    if (char === '"') return string();
    const literal = /^(?:true|false|null)/.exec(text.slice(at, at + 5));
    if (literal) {
      at += literal[0].length;
      return literal[0] === 'null' ? null : literal[0] === 'true';
    }
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!number) fail('unexpected token');
    at += number![0].length;
    return new JsonNumber(number![0]);
  };
  const string = (): string => {
    const start = at;
    at++;
    for (;;) {
      const char = text[at];
      if (char === undefined) fail('unterminated string');
      if (char! < ' ') fail('raw control character in string');
      if (char === '\\') at += 2;
      else if (char === '"') break;
      else at++;
    }
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const result = value();
  space();
  if (at !== text.length) fail('trailing text');
  return result;
}
