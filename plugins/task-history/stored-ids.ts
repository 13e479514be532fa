import type { QueryShape } from './shape-columns.js';

/** Shapes remembered at most before all are forgotten (their rows keep them; later uses get new ids). */
const MAX_SHAPES = 50_000;
const MAX_SHAPE_CHARS = 16 * 1024 * 1024;

/** One level of the shape tree: a part of the shape to the next level, the input to an id at the last. */
type Level = Map<unknown, Level | number>;

/**
 * The ids stored task rows use across batches. A row's shape (its task, its input and, for a
 * query, every label but its counts) repeats from row to row: each is stored once in
 * `runtime.task_history_shapes` and rows name it by id. Shapes are found part by part in a
 * tree of maps (no key string is built for a row: on a cache hit that cost more than the
 * rest of the row). Shape ids only grow; `forget()` starts every shape anew, after which no
 * id below the returned boundary is handed out again, so the shapes below it that no row
 * names can be deleted (see `enforceRetention`). Extras (a row's rare parts) get ids of their own.
 */
export class StoredIds {
  #queries: Level = new Map();
  #tasks: Level = new Map();
  #leaf: Level | undefined;
  #leafKey = '';
  #nextShape = 1;
  #shapes = 0;
  #shapeChars = 0;
  #nextExtra = 1;

  /** The id of a query's shape, or 0 when it is new (`addShape` then gives it one). */
  queryShape(input: string, shape: QueryShape): number {
    this.#bound();
    let level = this.#child(this.#queries, shape.protocol);
    level = this.#child(level, shape.datasets);
    level = this.#child(level, shape.statementType);
    level = this.#child(level, shape.principal);
    level = this.#child(level, shape.cacheStatus);
    level = this.#child(level, shape.accelerated);
    level = this.#child(level, shape.errorCode);
    return this.#find(level, input);
  }

  /** The id of another task's shape, or 0 when it is new (`addShape` then gives it one). */
  taskShape(task: string, input: string): number {
    this.#bound();
    return this.#find(this.#child(this.#tasks, task), input);
  }

  /** An id for the shape the last `queryShape` or `taskShape` did not know. */
  addShape(): number {
    const id = this.#nextShape++;
    this.#leaf!.set(this.#leafKey, id);
    this.#shapes += 1;
    this.#shapeChars += this.#leafKey.length;
    return id;
  }

  /** Forgets every shape; returns the first id that can be handed out from now on. */
  forget(): number {
    this.#queries = new Map();
    this.#tasks = new Map();
    this.#shapes = 0;
    this.#shapeChars = 0;
    return this.#nextShape;
  }

  /** A new id for a row's extras (deleted with the row, by its start time). */
  nextExtra(): number {
    return this.#nextExtra++;
  }

  #bound(): void {
    if (this.#shapes >= MAX_SHAPES || this.#shapeChars >= MAX_SHAPE_CHARS) this.forget();
  }

  #child(level: Level, part: unknown): Level {
    let next = level.get(part) as Level | undefined;
    if (next === undefined) {
      next = new Map();
      level.set(part, next);
    }
    return next;
  }

  #find(leaf: Level, input: string): number {
    this.#leaf = leaf;
    this.#leafKey = input;
    return (leaf.get(input) as number | undefined) ?? 0;
  }
}
