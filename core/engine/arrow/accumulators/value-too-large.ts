/** `runtime.query.max_value_size` unless set: the longest single value a result may carry. */
export const DEFAULT_MAX_VALUE_BYTES = 64 * 1024 * 1024;

/**
 * A value longer than the result's limit, found before it was copied out of the engine.
 * The assembler adds the column's name (BatchAssembler turns it into RESULT_VALUE_TOO_LARGE).
 */
export class ValueTooLarge extends Error {
  constructor(
    readonly bytes: number,
    readonly row: number,
    readonly limit: number,
  ) {
    super(`a value of ${bytes} bytes is longer than the limit of ${limit} bytes`);
    this.name = 'ValueTooLarge';
  }
}
