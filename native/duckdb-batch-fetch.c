/*
 * Reads a streamed DuckDB result into Arrow record-batch buffers on a libuv worker thread.
 *
 * Through @duckdb/node-bindings every chunk (at most 2,048 rows) is a round trip from the JS
 * thread to a worker and back, a chunk object with a finalizer, and an allocation the engine
 * only gets back when V8 collects that object: the engine's freshly faulted pages, not the
 * fetch, were most of the time a 10M-row result took (1.6-2.3 s against 0.45 s for the same
 * fetches with each chunk freed at once). Here one call fetches chunks until a batch is full,
 * copies each into Arrow buffers (values, validity bitmap, offsets) and frees it at once; the
 * JS thread only wraps the finished buffers. Only flat columns whose Arrow layout is a copy,
 * a bit-pack, a sign extension or a string copy are taken (core/engine/arrow/native-batches.ts
 * decides); other results keep the JavaScript conversion.
 *
 * Batches are cut exactly as BatchAssembler cuts them (chunk-to-arrow.ts): at the row target
 * (splitting a chunk), before a chunk that would take the batch past the byte target, and
 * within a chunk whose strings exceed the large-chunk size. A string longer than the result's
 * value limit fails the call before any of its chunk is copied.
 *
 * The result is the external @duckdb/node-bindings made for it (checked by its type tag); the
 * fetcher holds a reference to it, so it outlives every fetch. One fetch runs at a time (a
 * second is refused); while it runs nothing else may read the result, which the JS side
 * guarantees by owning it. Every buffer is allocated here and handed to JS as an external
 * ArrayBuffer freed by its finalizer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <node_api.h>
#include "loaded-libduckdb.h"
#include "napi-check.h"
#include "arrow-columns.h"

/* duckdb.h's duckdb_result, passed by value to duckdb_fetch_chunk. */
typedef struct {
  uint64_t deprecated_column_count;
  uint64_t deprecated_row_count;
  uint64_t deprecated_rows_changed;
  void *deprecated_columns;
  char *deprecated_error_message;
  void *internal_data;
} duckdb_result;

typedef void *duckdb_data_chunk;
typedef void *duckdb_vector;

static duckdb_data_chunk (*fetch_chunk)(duckdb_result result) = NULL;
static void (*destroy_data_chunk)(duckdb_data_chunk *chunk) = NULL;
static uint64_t (*data_chunk_get_size)(duckdb_data_chunk chunk) = NULL;
static uint64_t (*data_chunk_get_column_count)(duckdb_data_chunk chunk) = NULL;
static duckdb_vector (*data_chunk_get_vector)(duckdb_data_chunk chunk, uint64_t index) = NULL;
static void *(*vector_get_data)(duckdb_vector vector) = NULL;
static uint64_t *(*vector_get_validity)(duckdb_vector vector) = NULL;
static bool (*result_is_streaming)(duckdb_result result) = NULL;
static uint64_t (*row_count)(duckdb_result *result) = NULL;

/* The type tag @duckdb/node-bindings puts on its result externals (bindings/src/type_tags.h). */
static const napi_type_tag RESULT_TYPE_TAG = {0x08F7FE3AE12345E5ULL, 0x8733310DC29372D9ULL};
/* Ours, on fetcher externals. */
static const napi_type_tag FETCHER_TYPE_TAG = {0x6C1B6E0F2D9A4C21ULL, 0xA3F05D7E91B24E68ULL};

enum failure_kind { FAILURE_NONE = 0, FAILURE_VALUE_TOO_LARGE, FAILURE_MESSAGE };

typedef struct {
  duckdb_result *result;
  napi_ref result_ref;
  int column_count;
  column *columns;
  int64_t target_rows;
  int64_t target_bytes;
  int64_t large_chunk_bytes;
  double max_value_bytes;
  /* The chunk being read (rows before chunk_offset are in earlier batches), or NULL. */
  duckdb_data_chunk chunk;
  int64_t chunk_rows;
  int64_t chunk_offset;
  /* Variable-width bytes of each row of `chunk`, when its strings exceed large_chunk_bytes. */
  double *row_sizes;
  int64_t row_sizes_capacity;
  bool cut_by_bytes;
  /*
   * A materialised result's rows, or -1 for a streamed one: once that many were fetched the
   * result has ended, without a last fetch (which allocates a whole empty chunk) to learn it.
   */
  int64_t expected_rows;
  int64_t fetched_rows;
  /* The result answered its last chunk (or failed: the JS side asks it which). */
  bool ended;
  bool busy;
  bool released;
  /* The batch being built: its rows, and the chunks fetched for it. */
  int64_t rows;
  int64_t chunks;
  int failure;
  int failure_column;
  double failure_bytes;
  const char *failure_message;
  napi_async_work work;
  napi_deferred deferred;
  napi_ref self_ref;
} fetcher;

static napi_value bind_library(napi_env env, napi_callback_info info) {
  void *library = loaded_libduckdb(env, info);
  if (library == NULL) return NULL;
  fetch_chunk = (duckdb_data_chunk(*)(duckdb_result))dlsym(library, "duckdb_fetch_chunk");
  destroy_data_chunk = (void (*)(duckdb_data_chunk *))dlsym(library, "duckdb_destroy_data_chunk");
  data_chunk_get_size = (uint64_t(*)(duckdb_data_chunk))dlsym(library, "duckdb_data_chunk_get_size");
  data_chunk_get_column_count = (uint64_t(*)(duckdb_data_chunk))dlsym(library, "duckdb_data_chunk_get_column_count");
  data_chunk_get_vector = (duckdb_vector(*)(duckdb_data_chunk, uint64_t))dlsym(library, "duckdb_data_chunk_get_vector");
  vector_get_data = (void *(*)(duckdb_vector))dlsym(library, "duckdb_vector_get_data");
  vector_get_validity = (uint64_t * (*)(duckdb_vector)) dlsym(library, "duckdb_vector_get_validity");
  result_is_streaming = (bool (*)(duckdb_result))dlsym(library, "duckdb_result_is_streaming");
  row_count = (uint64_t(*)(duckdb_result *))dlsym(library, "duckdb_row_count");
  if (fetch_chunk == NULL || destroy_data_chunk == NULL || data_chunk_get_size == NULL || data_chunk_get_column_count == NULL ||
      data_chunk_get_vector == NULL || vector_get_data == NULL || vector_get_validity == NULL || result_is_streaming == NULL || row_count == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "libduckdb lacks a data chunk function the batch helper needs");
    return NULL;
  }
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

static void fail_message(fetcher *f, const char *message) {
  f->failure = FAILURE_MESSAGE;
  f->failure_message = message;
}

/* ---- measuring a chunk ---- */

/*
 * Checks every string of the fresh chunk against the value limit and notes each row's bytes;
 * a chunk whose strings exceed large_chunk_bytes is cut by them. False (a failure set) when a
 * value is over the limit.
 */
static bool measure_chunk(fetcher *f) {
  f->cut_by_bytes = false;
  bool any = false;
  for (int i = 0; i < f->column_count; i++) any = any || f->columns[i].kind == KIND_STRING;
  if (!any) return true;
  if (f->row_sizes_capacity < f->chunk_rows) {
    double *grown = realloc(f->row_sizes, sizeof(double) * (size_t)f->chunk_rows);
    if (grown == NULL) {
      fail_message(f, "out of memory for a chunk's row sizes");
      return false;
    }
    f->row_sizes = grown;
    f->row_sizes_capacity = f->chunk_rows;
  }
  memset(f->row_sizes, 0, sizeof(double) * (size_t)f->chunk_rows);
  double total = 0;
  for (int i = 0; i < f->column_count; i++) {
    if (f->columns[i].kind != KIND_STRING) continue;
    duckdb_vector vector = data_chunk_get_vector(f->chunk, (uint64_t)i);
    const duckdb_string_t *strings = vector_get_data(vector);
    const uint64_t *mask = vector_get_validity(vector);
    if (strings == NULL) {
      fail_message(f, "a result vector has no data");
      return false;
    }
    for (int64_t row = 0; row < f->chunk_rows; row++) {
      if (!row_valid(mask, row)) continue;
      uint32_t length = strings[row].value.inlined.length;
      if ((double)length > f->max_value_bytes) {
        f->failure = FAILURE_VALUE_TOO_LARGE;
        f->failure_column = i;
        f->failure_bytes = length;
        return false;
      }
      f->row_sizes[row] += length;
      total += length;
    }
  }
  f->cut_by_bytes = total > (double)f->large_chunk_bytes;
  return true;
}

/* What the batch's buffers take now, as BatchAssembler.bufferedBytes counts it. */
static double buffered_bytes(const fetcher *f) {
  double bytes = 0;
  for (int i = 0; i < f->column_count; i++) {
    const column *c = &f->columns[i];
    if (c->kind == KIND_BOOLEAN) bytes += (double)(f->rows >> 3);
    else if (c->kind == KIND_STRING) bytes += (double)c->values.length + (double)(4 * (f->rows + 1));
    else bytes += (double)c->values.length;
  }
  return bytes + f->column_count * (double)(((f->rows + 7) >> 3) + 64);
}

/* How many rows from the chunk's offset (at most `most`, at least one) fit in `room` bytes. */
static int64_t rows_within(const fetcher *f, int64_t most, double room) {
  int64_t take = 0;
  while (take < most) {
    room -= f->row_sizes[f->chunk_offset + take];
    if (room < 0 && take > 0) break;
    take++;
  }
  return take;
}

/* Copies `count` rows from the chunk's offset into every column. */
static bool append_rows(fetcher *f, int64_t count) {
  for (int i = 0; i < f->column_count; i++) {
    duckdb_vector vector = data_chunk_get_vector(f->chunk, (uint64_t)i);
    const uint8_t *data = vector_get_data(vector);
    const char *failure = data == NULL ? "a result vector has no data" : append_column(&f->columns[i], data, vector_get_validity(vector), f->chunk_offset, count, f->rows);
    if (failure != NULL) {
      fail_message(f, failure);
      return false;
    }
  }
  return true;
}

static void drop_chunk(fetcher *f) {
  if (f->chunk != NULL) destroy_data_chunk(&f->chunk);
  f->chunk = NULL;
  f->cut_by_bytes = false;
}

/* ---- one batch, on a worker thread ---- */

static void fill_batch(napi_env env, void *data) {
  (void)env;
  fetcher *f = data;
  f->rows = 0;
  f->chunks = 0;
  f->failure = FAILURE_NONE;
  for (;;) {
    if (f->chunk == NULL) {
      if (f->ended) break;
      duckdb_data_chunk chunk = fetch_chunk(*f->result);
      uint64_t size = chunk == NULL ? 0 : data_chunk_get_size(chunk);
      if (size == 0) {
        if (chunk != NULL) destroy_data_chunk(&chunk);
        f->ended = true;
        break;
      }
      f->chunk = chunk;
      f->chunk_rows = (int64_t)size;
      f->chunk_offset = 0;
      f->chunks++;
      f->fetched_rows += (int64_t)size;
      if (f->expected_rows >= 0 && f->fetched_rows >= f->expected_rows) f->ended = true;
      if ((int)data_chunk_get_column_count(chunk) != f->column_count) {
        fail_message(f, "a chunk's column count differs from the result's");
        return;
      }
      if (!measure_chunk(f)) return;
      if (f->rows > 0) {
        /* A chunk that would take the batch past its byte target starts the next one. */
        double bytes = buffered_bytes(f);
        int64_t room = f->target_rows - f->rows;
        if (bytes + bytes / (double)f->rows * (double)(f->chunk_rows < room ? f->chunk_rows : room) > (double)f->target_bytes) break;
      }
    }
    int64_t take = f->chunk_rows - f->chunk_offset;
    if (take > f->target_rows - f->rows) take = f->target_rows - f->rows;
    if (f->cut_by_bytes) take = rows_within(f, take, (double)f->large_chunk_bytes - buffered_bytes(f));
    if (!append_rows(f, take)) return;
    f->rows += take;
    f->chunk_offset += take;
    bool cut_within_chunk = f->cut_by_bytes && f->chunk_offset < f->chunk_rows;
    if (f->chunk_offset == f->chunk_rows) drop_chunk(f);
    if (f->rows >= f->target_rows || buffered_bytes(f) >= (double)f->target_bytes || cut_within_chunk) break;
  }
}

/* ---- handing a batch to JS ---- */

static void free_bytes(napi_env env, void *bytes, void *hint) {
  (void)env;
  (void)hint;
  free(bytes);
}

/*
 * Buffers up to this size are copied into an ArrayBuffer V8 allocates, and the column keeps
 * its own for the next batch: an external ArrayBuffer costs Node a Buffer, a finalizer and a
 * deferred free, which were most of a point query's conversion (perf, in process); above it,
 * the copy would cost more.
 */
#define COPY_HANDOVER_BYTES (64 * 1024)

/*
 * The buffer's bytes as an ArrayBuffer JS owns from now on (the column starts its next one
 * empty). `keep`: a copied buffer's memory stays for the next batch (not for a validity bitmap,
 * whose absence says a batch has no null).
 */
static napi_status hand_over(napi_env env, buffer *source, bool keep, napi_value *out) {
  napi_status status;
  if (source->length <= COPY_HANDOVER_BYTES) {
    void *bytes;
    status = napi_create_arraybuffer(env, source->length, &bytes, out);
    if (status == napi_ok && source->length > 0) memcpy(bytes, source->bytes, source->length);
    if (keep) source->length = 0;
    else release_buffer(source);
    return status;
  }
  status = napi_create_external_arraybuffer(env, source->bytes, source->length, free_bytes, NULL, out);
  if (status != napi_ok) {
    release_buffer(source);
    return status;
  }
  source->bytes = NULL;
  source->length = 0;
  source->capacity = 0;
  return napi_ok;
}

/* Frees what the batch being built holds (after a failure, or when the fetcher is released). */
static void discard_batch(fetcher *f) {
  for (int i = 0; i < f->column_count; i++) {
    release_buffer(&f->columns[i].values);
    release_buffer(&f->columns[i].offsets);
    release_buffer(&f->columns[i].validity);
    f->columns[i].null_count = 0;
  }
  f->rows = 0;
}

/* [rows, chunks, ended, then per column: validity (ArrayBuffer or null), nullCount, values, offsets (ArrayBuffer or null)]. */
static napi_status batch_value(napi_env env, fetcher *f, napi_value *out) {
  napi_status status = napi_create_array_with_length(env, 3 + 4 * (size_t)f->column_count, out);
  if (status != napi_ok) return status;
  napi_value value;
  if ((status = napi_create_int64(env, f->rows, &value)) != napi_ok || (status = napi_set_element(env, *out, 0, value)) != napi_ok) return status;
  if ((status = napi_create_int64(env, f->chunks, &value)) != napi_ok || (status = napi_set_element(env, *out, 1, value)) != napi_ok) return status;
  if ((status = napi_get_boolean(env, f->ended && f->chunk == NULL, &value)) != napi_ok || (status = napi_set_element(env, *out, 2, value)) != napi_ok) return status;
  napi_value null_value;
  if ((status = napi_get_null(env, &null_value)) != napi_ok) return status;
  for (int i = 0; i < f->column_count; i++) {
    column *c = &f->columns[i];
    uint32_t at = 3 + 4 * (uint32_t)i;
    c->last_values = c->values.length;
    c->last_offsets = c->offsets.length;
    if (c->validity.bytes != NULL) {
      c->validity.length = (size_t)((f->rows + 7) >> 3);
      if ((status = hand_over(env, &c->validity, false, &value)) != napi_ok) return status;
    } else {
      value = null_value;
    }
    if ((status = napi_set_element(env, *out, at, value)) != napi_ok) return status;
    if ((status = napi_create_int64(env, c->null_count, &value)) != napi_ok || (status = napi_set_element(env, *out, at + 1, value)) != napi_ok) return status;
    c->null_count = 0;
    if ((status = hand_over(env, &c->values, true, &value)) != napi_ok || (status = napi_set_element(env, *out, at + 2, value)) != napi_ok) return status;
    if (c->kind == KIND_STRING) {
      if ((status = hand_over(env, &c->offsets, true, &value)) != napi_ok) return status;
    } else {
      value = null_value;
    }
    if ((status = napi_set_element(env, *out, at + 3, value)) != napi_ok) return status;
  }
  return napi_ok;
}

static void release_fetcher(fetcher *f) {
  if (f->released) return;
  f->released = true;
  drop_chunk(f);
  discard_batch(f);
}

static napi_value failure_error(napi_env env, fetcher *f) {
  napi_value code, message, error, value;
  if (f->failure == FAILURE_VALUE_TOO_LARGE) {
    if (napi_create_string_utf8(env, "QUARRY_VALUE_TOO_LARGE", NAPI_AUTO_LENGTH, &code) != napi_ok ||
        napi_create_string_utf8(env, "a value is longer than the result's limit", NAPI_AUTO_LENGTH, &message) != napi_ok ||
        napi_create_error(env, code, message, &error) != napi_ok)
      return NULL;
    if (napi_create_int32(env, f->failure_column, &value) == napi_ok) napi_set_named_property(env, error, "column", value);
    if (napi_create_double(env, f->failure_bytes, &value) == napi_ok) napi_set_named_property(env, error, "bytes", value);
    return error;
  }
  if (napi_create_string_utf8(env, "QUARRY_NATIVE", NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_string_utf8(env, f->failure_message, NAPI_AUTO_LENGTH, &message) != napi_ok ||
      napi_create_error(env, code, message, &error) != napi_ok)
    return NULL;
  return error;
}

/*
 * What a filled batch comes to: true with the batch (or null at the end) in *answer, false
 * with the error to give instead. Either way the fetcher is ready for the next call.
 */
static bool settle(napi_env env, fetcher *f, napi_value *answer) {
  if (f->failure != FAILURE_NONE) {
    // The result is unusable from here: nothing more is fetched.
    discard_batch(f);
    drop_chunk(f);
    f->ended = true;
    *answer = failure_error(env, f);
    if (*answer == NULL) napi_get_undefined(env, answer);
    return false;
  }
  if (f->rows == 0) {
    napi_get_null(env, answer);
    return true;
  }
  if (batch_value(env, f, answer) != napi_ok) {
    discard_batch(f);
    napi_value code, message;
    *answer = NULL;
    napi_create_string_utf8(env, "QUARRY_NATIVE", NAPI_AUTO_LENGTH, &code);
    napi_create_string_utf8(env, "could not hand a batch to JavaScript", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, code, message, answer);
    return false;
  }
  f->rows = 0;
  return true;
}

static void batch_done(napi_env env, napi_status work_status, void *data) {
  fetcher *f = data;
  napi_deferred deferred = f->deferred;
  f->deferred = NULL;
  napi_delete_async_work(env, f->work);
  f->work = NULL;
  f->busy = false;
  uint32_t count;
  napi_reference_unref(env, f->self_ref, &count);
  if (work_status != napi_ok) fail_message(f, "the fetch was cancelled");
  napi_value answer = NULL;
  if (settle(env, f, &answer)) napi_resolve_deferred(env, deferred, answer);
  else napi_reject_deferred(env, deferred, answer);
}

/* ---- the JS surface ---- */

static void finalize_fetcher(napi_env env, void *data, void *hint) {
  (void)hint;
  fetcher *f = data;
  release_fetcher(f);
  if (f->result_ref != NULL) napi_delete_reference(env, f->result_ref);
  if (f->self_ref != NULL) napi_delete_reference(env, f->self_ref);
  free(f->row_sizes);
  free(f->columns);
  free(f);
}

static bool integer_at_least(napi_env env, napi_value value, int64_t minimum, int64_t *out, const char *message) {
  if (napi_get_value_int64(env, value, out) != napi_ok || *out < minimum) {
    napi_throw_type_error(env, "QUARRY_NATIVE", message);
    return false;
  }
  return true;
}

/*
 * open(result, plan, targetRows, targetBytes, largeChunkBytes, maxValueBytes): a fetcher for the
 * result. `plan` is an Int32Array of three entries a column: kind, source width, target width.
 */
static napi_value open_fetcher(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (fetch_chunk == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "bind(libraryPath) was not called");
    return NULL;
  }
  if (argc < 6) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "open(result, plan, targetRows, targetBytes, largeChunkBytes, maxValueBytes) takes six arguments");
    return NULL;
  }
  napi_valuetype kind = napi_undefined;
  bool tagged = false;
  duckdb_result *result = NULL;
  if (napi_typeof(env, argv[0], &kind) != napi_ok || kind != napi_external ||
      napi_check_object_type_tag(env, argv[0], &RESULT_TYPE_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], (void **)&result) != napi_ok || result == NULL) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "the first argument must be a DuckDB result external of @duckdb/node-bindings");
    return NULL;
  }
  bool is_typed_array = false;
  napi_typedarray_type type;
  size_t plan_length = 0;
  int32_t *plan = NULL;
  if (napi_is_typedarray(env, argv[1], &is_typed_array) != napi_ok || !is_typed_array ||
      napi_get_typedarray_info(env, argv[1], &type, &plan_length, (void **)&plan, NULL, NULL) != napi_ok || type != napi_int32_array ||
      plan_length == 0 || plan_length % 3 != 0 || plan_length / 3 > 100000) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "plan must be an Int32Array of three entries a column (kind, source width, target width)");
    return NULL;
  }
  int64_t target_rows, target_bytes, large_chunk_bytes;
  double max_value_bytes;
  if (!integer_at_least(env, argv[2], 1, &target_rows, "targetRows must be a positive integer") ||
      !integer_at_least(env, argv[3], 1, &target_bytes, "targetBytes must be a positive integer") ||
      !integer_at_least(env, argv[4], 1, &large_chunk_bytes, "largeChunkBytes must be a positive integer")) {
    return NULL;
  }
  if (napi_get_value_double(env, argv[5], &max_value_bytes) != napi_ok || !(max_value_bytes >= 0)) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "maxValueBytes must be a non-negative number");
    return NULL;
  }
  int column_count = (int)(plan_length / 3);
  for (int i = 0; i < column_count; i++) {
    int column_kind = plan[3 * i], source = plan[3 * i + 1], target = plan[3 * i + 2];
    bool valid = (column_kind == KIND_FIXED && (source == 1 || source == 2 || source == 4 || source == 8 || source == 16)) ||
                 (column_kind == KIND_BOOLEAN && source == 1) ||
                 (column_kind == KIND_WIDEN && (source == 2 || source == 4 || source == 8) && (target == 16 || target == 32)) ||
                 (column_kind == KIND_STRING && source == 16);
    if (!valid) {
      napi_throw_range_error(env, "QUARRY_NATIVE", "plan names a column kind or width the helper does not convert");
      return NULL;
    }
  }
  fetcher *f = calloc(1, sizeof(fetcher));
  column *columns = calloc(plan_length / 3, sizeof(column));
  if (f == NULL || columns == NULL) {
    free(f);
    free(columns);
    napi_throw_error(env, "QUARRY_NATIVE", "out of memory for a fetcher");
    return NULL;
  }
  for (int i = 0; i < column_count; i++) {
    columns[i].kind = plan[3 * i];
    columns[i].source_width = plan[3 * i + 1];
    columns[i].target_width = plan[3 * i + 2];
  }
  f->result = result;
  f->expected_rows = result_is_streaming(*result) ? -1 : (int64_t)row_count(result);
  /* An empty materialised result has ended before any fetch. */
  f->ended = f->expected_rows == 0;
  f->column_count = column_count;
  f->columns = columns;
  f->target_rows = target_rows;
  f->target_bytes = target_bytes;
  f->large_chunk_bytes = large_chunk_bytes;
  f->max_value_bytes = max_value_bytes;
  napi_value external;
  if (napi_create_external(env, f, finalize_fetcher, NULL, &external) != napi_ok) {
    free(columns);
    free(f);
    napi_throw_error(env, "QUARRY_NATIVE", "could not create the fetcher");
    return NULL;
  }
  // From here the finalizer frees f.
  CHECK(env, napi_type_tag_object(env, external, &FETCHER_TYPE_TAG));
  CHECK(env, napi_create_reference(env, argv[0], 1, &f->result_ref));
  CHECK(env, napi_create_reference(env, external, 0, &f->self_ref));
  return external;
}

static fetcher *fetcher_of(napi_env env, napi_callback_info info, const char *usage) {
  size_t argc = 1;
  napi_value argv[1];
  napi_valuetype kind = napi_undefined;
  bool tagged = false;
  fetcher *f = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_typeof(env, argv[0], &kind) != napi_ok || kind != napi_external ||
      napi_check_object_type_tag(env, argv[0], &FETCHER_TYPE_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], (void **)&f) != napi_ok || f == NULL) {
    napi_throw_type_error(env, "QUARRY_NATIVE", usage);
    return NULL;
  }
  return f;
}

/* The fetcher of the call's argument, refused (NULL, an exception thrown) while a fetch of it runs. */
static fetcher *idle_fetcher_of(napi_env env, napi_callback_info info, const char *usage) {
  fetcher *f = fetcher_of(env, info, usage);
  if (f != NULL && f->busy) {
    napi_throw_error(env, "QUARRY_NATIVE", "a fetch of this result is already running");
    return NULL;
  }
  return f;
}

/* next(fetcher): a promise of the next batch ([rows, chunks, ended, ...columns]) or null at the end. */
static napi_value next_batch(napi_env env, napi_callback_info info) {
  fetcher *f = idle_fetcher_of(env, info, "next(fetcher) takes a fetcher from open()");
  if (f == NULL) return NULL;
  napi_value promise;
  CHECK(env, napi_create_promise(env, &f->deferred, &promise));
  if (f->released || (f->ended && f->chunk == NULL)) {
    napi_value null_value;
    CHECK(env, napi_get_null(env, &null_value));
    napi_resolve_deferred(env, f->deferred, null_value);
    f->deferred = NULL;
    return promise;
  }
  napi_value name;
  CHECK(env, napi_create_string_utf8(env, "quarry:duckdb-batch-fetch", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_create_async_work(env, NULL, name, fill_batch, batch_done, f, &f->work));
  uint32_t count;
  // The fetcher (and through it the result) stays alive until the work is done.
  CHECK(env, napi_reference_ref(env, f->self_ref, &count));
  f->busy = true;
  CHECK(env, napi_queue_async_work(env, f->work));
  return promise;
}

/*
 * nextNow(fetcher): the next batch (or null at the end) built on the calling thread. Only for a
 * materialised result: its chunks are already in memory, so a fetch runs no query and a worker
 * thread's round trip (waking a worker, then the event loop) would cost more than the copy.
 */
static napi_value next_batch_now(napi_env env, napi_callback_info info) {
  fetcher *f = idle_fetcher_of(env, info, "nextNow(fetcher) takes a fetcher from open()");
  if (f == NULL) return NULL;
  if (f->expected_rows < 0) {
    // A streamed result's fetch runs the query: never on the event loop.
    napi_throw_error(env, "QUARRY_NATIVE", "nextNow takes a materialised result; a streamed one is read with next()");
    return NULL;
  }
  napi_value answer = NULL;
  if (f->released || (f->ended && f->chunk == NULL)) {
    CHECK(env, napi_get_null(env, &answer));
    return answer;
  }
  fill_batch(env, f);
  if (settle(env, f, &answer)) return answer;
  napi_throw(env, answer);
  return NULL;
}

/*
 * release(fetcher): frees the chunk and buffers it holds now rather than at its collection.
 * Refused while a fetch runs (wait for it first).
 */
static napi_value release(napi_env env, napi_callback_info info) {
  fetcher *f = fetcher_of(env, info, "release(fetcher) takes a fetcher from open()");
  if (f == NULL) return NULL;
  if (f->busy) {
    napi_throw_error(env, "QUARRY_NATIVE", "a fetch of this result is still running");
    return NULL;
  }
  release_fetcher(f);
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"bind", NULL, bind_library, NULL, NULL, NULL, napi_default, NULL},
      {"open", NULL, open_fetcher, NULL, NULL, NULL, napi_default, NULL},
      {"next", NULL, next_batch, NULL, NULL, NULL, napi_default, NULL},
      {"nextNow", NULL, next_batch_now, NULL, NULL, NULL, napi_default, NULL},
      {"release", NULL, release, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
