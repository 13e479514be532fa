/** RFC 4180 parser for tests: fields keep whether they were quoted (NULL vs empty string). */
export interface CsvField {
  readonly text: string;
  readonly quoted: boolean;
}

export function parseCsv(text: string): CsvField[][] {
  const rows: CsvField[][] = [];
  let row: CsvField[] = [];
  let at = 0;
  for (;;) {
    let field: CsvField;
    if (text[at] === '"') {
      let value = '';
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) throw new SyntaxError('unterminated quoted field');
        value += text.slice(at, quote);
        at = quote + 1;
        if (text[at] === '"') {
          value += '"';
          at++;
        } else break;
      }
      field = { text: value, quoted: true };
    } else {
      let end = at;
      while (end < text.length && text[end] !== ',' && text[end] !== '\r' && text[end] !== '\n') {
        if (text[end] === '"') throw new SyntaxError(`quote inside an unquoted field at ${end}`);
        end++;
      }
      field = { text: text.slice(at, end), quoted: false };
      at = end;
    }
    row.push(field);
    if (text[at] === ',') {
      at++;
      continue;
    }
    if (text.startsWith('\r\n', at)) {
      at += 2;
      rows.push(row);
      row = [];
      if (at === text.length) return rows;
      continue;
    }
    if (at === text.length) {
      rows.push(row);
      return rows;
    }
    throw new SyntaxError(`unexpected ${JSON.stringify(text[at])} at ${at}`);
  }
}
