/**
 * Which chart a result suggests, from its column types alone: a time or date column and numbers
 * → a line over time; a text column and numbers → bars per category; two numbers → a scatter.
 * No DOM here: unit-tested in Node.
 */
export type ChartKind = 'line' | 'bar' | 'scatter';

export interface ChartColumn {
  readonly name: string;
  readonly numeric: boolean;
  readonly temporal: boolean;
}

export interface ChartChoice {
  readonly kind: ChartKind;
  /** The x column's name; undefined plots against the row number. */
  readonly x: string | undefined;
  readonly y: readonly string[];
}

/** At most this many series are guessed (more can be chosen). */
const GUESSED_SERIES = 3;

/** `id`, `order_id`, `customerId`: numbers that name rows, not measures worth plotting. */
const IDENTIFIER = /(^id$|_id$|[a-z]Id$)/;

export function guessChart(columns: readonly ChartColumn[]): ChartChoice | undefined {
  const allNumeric = columns.filter((column) => column.numeric);
  const measures = allNumeric.filter((column) => !IDENTIFIER.test(column.name));
  // Identifiers are plotted only when nothing else is numeric.
  const numeric = measures.length > 0 ? measures : allNumeric;
  if (numeric.length === 0) return undefined;
  const temporal = columns.find((column) => column.temporal);
  if (temporal !== undefined) return { kind: 'line', x: temporal.name, y: numeric.slice(0, GUESSED_SERIES).map((column) => column.name) };
  const label = columns.find((column) => !column.numeric);
  if (label !== undefined) return { kind: 'bar', x: label.name, y: numeric.slice(0, GUESSED_SERIES).map((column) => column.name) };
  if (numeric.length >= 2) return { kind: 'scatter', x: numeric[0]!.name, y: [numeric[1]!.name] };
  return { kind: 'line', x: undefined, y: [numeric[0]!.name] };
}
