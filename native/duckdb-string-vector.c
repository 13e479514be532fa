/*
 * Copies the strings of a DuckDB VARCHAR or BLOB vector into Arrow's Utf8/Binary buffers.
 *
 * A DuckDB string_t holds up to 12 bytes inline and longer strings behind a pointer. From
 * JavaScript each out-of-line string (or run of adjacent ones) costs a native call, and the
 * per-string loop costs ~80 ns: most of the time a result's VARCHAR column takes to become
 * Arrow. Here one call copies every selected string of a vector and writes its end offset.
 *
 * The vector is the external @duckdb/node-bindings made for it (checked by its type tag); its
 * data and validity are read with the C API of the libduckdb the bindings loaded (looked up
 * with RTLD_NOLOAD). It is called on the JS thread while the vector's chunk is alive and no
 * DuckDB thread writes it. Every index and every write is checked against what the caller
 * passed: a bad argument throws, it never reads or writes outside the given memory. The one
 * thing taken on trust is `vectorLength`, the vector's row count (its chunk's size, or a list
 * child's): the C API cannot tell a vector's length, and the bindings' own vector_get_data
 * trusts the byte count it is given in the same way.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <node_api.h>
#include "loaded-libduckdb.h"
#include "napi-check.h"
#include "duckdb-string.h"

typedef void *(*vector_get_data_function)(void *vector);
typedef uint64_t *(*vector_get_validity_function)(void *vector);

/* The type tag @duckdb/node-bindings puts on its vector externals (bindings/src/type_tags.h). */
static const napi_type_tag VECTOR_TYPE_TAG = {0x9FE56DE8E3124D07ULL, 0x9ABF31145EDE1C9EULL};

static vector_get_data_function vector_get_data = NULL;
static vector_get_validity_function vector_get_validity = NULL;

/* bind(libraryPath): finds the vector functions in the libduckdb already loaded from that path. */
static napi_value bind_library(napi_env env, napi_callback_info info) {
  void *library = loaded_libduckdb(env, info);
  if (library == NULL) return NULL;
  vector_get_data = (vector_get_data_function)dlsym(library, "duckdb_vector_get_data");
  vector_get_validity = (vector_get_validity_function)dlsym(library, "duckdb_vector_get_validity");
  if (vector_get_data == NULL || vector_get_validity == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "libduckdb lacks duckdb_vector_get_data or duckdb_vector_get_validity");
    return NULL;
  }
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

/* A typed array argument of the expected type: its data and element count, or false (an error is thrown). */
static bool typed_array_of(napi_env env, napi_value value, napi_typedarray_type expected, void **data, size_t *length, const char *message) {
  bool is_typed_array = false;
  napi_typedarray_type type;
  if (napi_is_typedarray(env, value, &is_typed_array) != napi_ok || !is_typed_array ||
      napi_get_typedarray_info(env, value, &type, length, data, NULL, NULL) != napi_ok || type != expected) {
    napi_throw_type_error(env, "QUARRY_NATIVE", message);
    return false;
  }
  return true;
}

static bool non_negative_integer(napi_env env, napi_value value, int64_t *out, const char *message) {
  if (napi_get_value_int64(env, value, out) != napi_ok || *out < 0) {
    napi_throw_type_error(env, "QUARRY_NATIVE", message);
    return false;
  }
  return true;
}

/* The vector behind a @duckdb/node-bindings vector external, or false (an error is thrown). */
static bool vector_of(napi_env env, napi_value value, void **vector) {
  napi_valuetype kind = napi_undefined;
  bool tagged = false;
  if (napi_typeof(env, value, &kind) != napi_ok || kind != napi_external ||
      napi_check_object_type_tag(env, value, &VECTOR_TYPE_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, value, vector) != napi_ok) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "the first argument must be a DuckDB vector external of @duckdb/node-bindings");
    return false;
  }
  return true;
}

/* The selected rows: `indexes` (a Uint32Array of at least count rows) or the range start..start+count inside the vector. */
static bool selection_of(napi_env env, napi_value value, int64_t start, int64_t count, int64_t vector_length, const uint32_t **indexes) {
  napi_valuetype kind = napi_undefined;
  if (napi_typeof(env, value, &kind) != napi_ok) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "indexes must be a Uint32Array or null");
    return false;
  }
  if (kind == napi_null) {
    *indexes = NULL;
    if (start + count > vector_length) {
      napi_throw_range_error(env, "QUARRY_NATIVE", "start + count is past the vector's length");
      return false;
    }
    return true;
  }
  size_t length = 0;
  if (!typed_array_of(env, value, napi_uint32_array, (void **)indexes, &length, "indexes must be a Uint32Array or null")) return false;
  if ((int64_t)length < count) {
    napi_throw_range_error(env, "QUARRY_NATIVE", "indexes holds fewer than count rows");
    return false;
  }
  return true;
}

/* Arguments 0-4 of copy() and measure(): the vector, its length and the selected rows. */
typedef struct {
  int64_t vector_length;
  int64_t start;
  int64_t count;
  /* NULL: the rows start..start+count. */
  const uint32_t *indexes;
  const duckdb_string_t *strings;
  /* NULL: every row is valid. */
  const uint64_t *validity;
} string_rows;

static bool string_rows_of(napi_env env, napi_value *argv, size_t argc, size_t expected, const char *usage, string_rows *rows) {
  if (vector_get_data == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "bind(libraryPath) was not called");
    return false;
  }
  if (argc < expected) {
    napi_throw_type_error(env, "QUARRY_NATIVE", usage);
    return false;
  }
  void *vector = NULL;
  if (!vector_of(env, argv[0], &vector) ||
      !non_negative_integer(env, argv[1], &rows->vector_length, "vectorLength must be a non-negative integer") ||
      !non_negative_integer(env, argv[2], &rows->start, "start must be a non-negative integer") ||
      !non_negative_integer(env, argv[3], &rows->count, "count must be a non-negative integer") ||
      !selection_of(env, argv[4], rows->start, rows->count, rows->vector_length, &rows->indexes)) {
    return false;
  }
  rows->strings = rows->vector_length == 0 ? NULL : (const duckdb_string_t *)vector_get_data(vector);
  rows->validity = rows->vector_length == 0 ? NULL : vector_get_validity(vector);
  if (rows->strings == NULL && rows->count > 0) {
    napi_throw_error(env, "QUARRY_NATIVE", "the vector has no data");
    return false;
  }
  return true;
}

/* The vector row of the i-th selected row, or -1 (an error is thrown) when it is past the vector. */
static int64_t row_at(napi_env env, const string_rows *rows, int64_t i) {
  int64_t row = rows->indexes == NULL ? rows->start + i : (int64_t)rows->indexes[i];
  if (row >= rows->vector_length) {
    napi_throw_range_error(env, "QUARRY_NATIVE", "a selected row is past the vector's length");
    return -1;
  }
  return row;
}

static bool is_valid(const string_rows *rows, int64_t row) {
  return rows->validity == NULL || ((rows->validity[row >> 6] >> (row & 63)) & 1) != 0;
}

/*
 * copy(vector, vectorLength, start, count, indexes, out, position, offsets, offsetIndex):
 * for each selected row (rows start..start+count, or indexes[0..count) when indexes is a
 * Uint32Array rather than null), appends its bytes to `out` at `position` when the row is
 * valid and writes the position after it to offsets[offsetIndex + i]. Returns the position
 * after the last string.
 */
static napi_value copy(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  string_rows rows;
  if (!string_rows_of(env, argv, argc, 9, "copy(vector, vectorLength, start, count, indexes, out, position, offsets, offsetIndex) takes nine arguments", &rows)) return NULL;
  int64_t position, offset_index;
  uint8_t *out = NULL;
  size_t out_length = 0;
  int32_t *offsets = NULL;
  size_t offsets_length = 0;
  if (!non_negative_integer(env, argv[6], &position, "position must be a non-negative integer") ||
      !non_negative_integer(env, argv[8], &offset_index, "offsetIndex must be a non-negative integer") ||
      !typed_array_of(env, argv[5], napi_uint8_array, (void **)&out, &out_length, "out must be a Uint8Array") ||
      !typed_array_of(env, argv[7], napi_int32_array, (void **)&offsets, &offsets_length, "offsets must be an Int32Array")) {
    return NULL;
  }
  if (offset_index + rows.count > (int64_t)offsets_length) {
    napi_throw_range_error(env, "QUARRY_NATIVE", "offsets has no room for count more offsets");
    return NULL;
  }
  for (int64_t i = 0; i < rows.count; i++) {
    int64_t row = row_at(env, &rows, i);
    if (row < 0) return NULL;
    if (is_valid(&rows, row)) {
      const duckdb_string_t *value = &rows.strings[row];
      uint32_t length = value->value.inlined.length;
      if (position + (int64_t)length > (int64_t)out_length || position + (int64_t)length > INT32_MAX) {
        napi_throw_range_error(env, "QUARRY_NATIVE", "out has no room for the vector's strings");
        return NULL;
      }
      const char *bytes = duckdb_string_bytes(value);
      memcpy(out + position, bytes, length);
      position += length;
    }
    offsets[offset_index + i] = (int32_t)position;
  }
  napi_value answer;
  CHECK(env, napi_create_int64(env, position, &answer));
  return answer;
}

/*
 * measure(vector, vectorLength, start, count, indexes, maxValueBytes, sizes): the bytes of the
 * selected valid rows' strings; when `sizes` is a Float64Array (not null), each selected row's
 * length is also added to sizes[i]. A string longer than maxValueBytes stops it: the answer is
 * then -(row + 1), the vector row of the first such string.
 */
static napi_value measure(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  string_rows rows;
  if (!string_rows_of(env, argv, argc, 7, "measure(vector, vectorLength, start, count, indexes, maxValueBytes, sizes) takes seven arguments", &rows)) return NULL;
  double max_value_bytes = 0;
  if (napi_get_value_double(env, argv[5], &max_value_bytes) != napi_ok) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "maxValueBytes must be a number");
    return NULL;
  }
  double *sizes = NULL;
  napi_valuetype sizes_kind = napi_undefined;
  CHECK(env, napi_typeof(env, argv[6], &sizes_kind));
  if (sizes_kind != napi_null) {
    size_t sizes_length = 0;
    if (!typed_array_of(env, argv[6], napi_float64_array, (void **)&sizes, &sizes_length, "sizes must be a Float64Array or null")) return NULL;
    if ((int64_t)sizes_length < rows.count) {
      napi_throw_range_error(env, "QUARRY_NATIVE", "sizes holds fewer than count rows");
      return NULL;
    }
  }
  int64_t total = 0;
  for (int64_t i = 0; i < rows.count; i++) {
    int64_t row = row_at(env, &rows, i);
    if (row < 0) return NULL;
    if (!is_valid(&rows, row)) continue;
    uint32_t length = rows.strings[row].value.inlined.length;
    if ((double)length > max_value_bytes) {
      total = -(row + 1);
      break;
    }
    total += length;
    if (sizes != NULL) sizes[i] += length;
  }
  napi_value answer;
  CHECK(env, napi_create_int64(env, total, &answer));
  return answer;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"bind", NULL, bind_library, NULL, NULL, NULL, napi_default, NULL},
      {"copy", NULL, copy, NULL, NULL, NULL, napi_default, NULL},
      {"measure", NULL, measure, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
