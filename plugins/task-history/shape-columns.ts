import { Int64, Uint8, type RecordBatch } from 'apache-arrow';
import { byteColumn, int64Column, recordBatchOf, writeInt64 } from './fixed-column.js';
import { SHAPES_SCHEMA } from './stored-schemas.js';
import { TextColumn, wellFormed } from './text-column.js';

/** What a query's shape holds besides its input (the task is `sql_query`). */
export interface QueryShape {
  readonly protocol: string;
  readonly datasets: string;
  readonly statementType: string;
  readonly principal: string;
  readonly cacheStatus: string | undefined;
  readonly accelerated: boolean;
  readonly errorCode: string | undefined;
}

/** The shapes a batch named first, written before its rows (`SHAPES_SCHEMA`). */
export class ShapeColumns {
  readonly #ids = int64Column();
  readonly #task = new TextColumn();
  readonly #input = new TextColumn();
  readonly #protocol = new TextColumn();
  readonly #datasets = new TextColumn();
  readonly #statementType = new TextColumn();
  readonly #principal = new TextColumn();
  readonly #cacheStatus = new TextColumn();
  readonly #accelerated = byteColumn();
  readonly #errorCode = new TextColumn();
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** A shape: a query's when `query` is given, else another task's. */
  add(id: number, task: string, input: string, query: QueryShape | undefined): void {
    const row = this.#count++;
    this.#ids.ensure(row + 1);
    this.#accelerated.ensure(row + 1);
    writeInt64(this.#ids.values, row, id);
    this.#task.append(wellFormed(task));
    this.#input.append(wellFormed(input));
    this.#protocol.append(query && wellFormed(query.protocol));
    this.#datasets.append(query && wellFormed(query.datasets));
    this.#statementType.append(query && wellFormed(query.statementType));
    this.#principal.append(query && wellFormed(query.principal));
    this.#cacheStatus.append(query?.cacheStatus && wellFormed(query.cacheStatus));
    this.#accelerated.values[row] = query?.accelerated === true ? 1 : 0;
    this.#errorCode.append(query?.errorCode && wellFormed(query.errorCode));
  }

  batch(): RecordBatch {
    const length = this.#count;
    return recordBatchOf(SHAPES_SCHEMA, length, [
      this.#ids.data(new Int64(), length), this.#task.data(), this.#input.data(), this.#protocol.data(), this.#datasets.data(),
      this.#statementType.data(), this.#principal.data(), this.#cacheStatus.data(), this.#accelerated.data(new Uint8(), length), this.#errorCode.data(),
    ]);
  }

  clear(): void {
    for (const column of [this.#task, this.#input, this.#protocol, this.#datasets, this.#statementType, this.#principal, this.#cacheStatus, this.#errorCode]) column.clear();
    this.#count = 0;
  }
}
