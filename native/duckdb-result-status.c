/*
 * Tells whether a streamed DuckDB result ended or failed.
 *
 * @duckdb/node-bindings resolves `fetch_chunk` to null both at the end of a streamed result
 * and when the query failed while streaming: the C API keeps the failure in the result,
 * readable with duckdb_result_error(), which the bindings do not expose. This module reads it
 * for the result the bindings already hold (a Node-API external tagged as a DuckDB result),
 * from the very libduckdb instance the bindings loaded (looked up with RTLD_NOLOAD, never a
 * second copy).
 *
 * It is called on the JS thread only after the fetch that returned null has settled, so no
 * DuckDB thread touches the result at the same time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <node_api.h>
#include "loaded-libduckdb.h"
#include "napi-check.h"

/* duckdb.h's declarations, by value: the npm packages ship libduckdb without its header. */
typedef const char *(*result_error_function)(void *result);
typedef int (*result_error_type_function)(void *result);

/* The type tag @duckdb/node-bindings puts on its result externals (bindings/src/type_tags.h). */
static const napi_type_tag RESULT_TYPE_TAG = {0x08F7FE3AE12345E5ULL, 0x8733310DC29372D9ULL};

static result_error_function result_error = NULL;
static result_error_type_function result_error_type = NULL;

/* bind(libraryPath): finds duckdb_result_error in the libduckdb already loaded from that path. */
static napi_value bind_library(napi_env env, napi_callback_info info) {
  void *library = loaded_libduckdb(env, info);
  if (library == NULL) return NULL;
  result_error = (result_error_function)dlsym(library, "duckdb_result_error");
  result_error_type = (result_error_type_function)dlsym(library, "duckdb_result_error_type");
  if (result_error == NULL || result_error_type == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "libduckdb lacks duckdb_result_error or duckdb_result_error_type");
    return NULL;
  }
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

/* failure(resultExternal): null when the result has no error, else [message, errorType]. */
static napi_value failure(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (result_error == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "bind(libraryPath) was not called");
    return NULL;
  }
  napi_valuetype type = napi_undefined;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_external) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "failure(result) takes a DuckDB result external");
    return NULL;
  }
  bool tagged = false;
  CHECK(env, napi_check_object_type_tag(env, argv[0], &RESULT_TYPE_TAG, &tagged));
  if (!tagged) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "the external is not a DuckDB result of @duckdb/node-bindings");
    return NULL;
  }
  void *result = NULL;
  CHECK(env, napi_get_value_external(env, argv[0], &result));
  napi_value answer;
  const char *message = result == NULL ? NULL : result_error(result);
  if (message == NULL) {
    CHECK(env, napi_get_null(env, &answer));
    return answer;
  }
  napi_value text, kind;
  CHECK(env, napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text));
  CHECK(env, napi_create_int32(env, result_error_type(result), &kind));
  CHECK(env, napi_create_array_with_length(env, 2, &answer));
  CHECK(env, napi_set_element(env, answer, 0, text));
  CHECK(env, napi_set_element(env, answer, 1, kind));
  return answer;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"bind", NULL, bind_library, NULL, NULL, NULL, napi_default, NULL},
      {"failure", NULL, failure, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
