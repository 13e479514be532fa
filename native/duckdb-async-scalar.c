/*
 * Scalar functions whose answer JS computes asynchronously.
 *
 * @duckdb/node-bindings runs a JS scalar function on the JS thread and needs the output
 * vector filled before the JS callback returns, so a function that asks the network for its
 * values had to block the JS thread (and every other request of the process) until the
 * answer came. Here the function is a C function of the DuckDB C API instead:
 *
 *   1. DuckDB calls `main_function` on one of its worker threads (queries never run on the
 *      JS thread: the bindings start and fetch them on libuv's pool).
 *   2. It hands the chunk to the JS thread through a Node-API thread-safe function, without
 *      waiting there, and parks its own thread on a condition variable.
 *   3. On the JS thread `call_js` turns the chunk's arguments into JS columns and calls the
 *      function's JS handler with a ticket. The handler may await anything; the event loop
 *      runs meanwhile.
 *   4. `complete(ticket, values | null, error | null)`, on the JS thread, writes the values
 *      into the output vector (or keeps the error) and wakes the DuckDB thread, which then
 *      returns to DuckDB.
 *
 * The output vector stays valid throughout: DuckDB's thread is parked inside the call that
 * owns it. Every path ends in `finish`, so a parked thread is always woken: a handler that
 * throws, a ticket collected without an answer and a runtime shutting down all answer with
 * an error.
 *
 * Types: BOOLEAN, INTEGER, BIGINT, FLOAT, DOUBLE and VARCHAR, in and out.
 * The DuckDB C API is taken from the libduckdb the bindings loaded (RTLD_NOLOAD), never a
 * second copy.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <node_api.h>
#include "loaded-libduckdb.h"

/* duckdb.h's declarations, by value: the npm packages ship libduckdb without its header. */
typedef uint64_t idx_t;
typedef void *opaque;
enum { TYPE_BOOLEAN = 1, TYPE_INTEGER = 4, TYPE_BIGINT = 5, TYPE_FLOAT = 10, TYPE_DOUBLE = 11, TYPE_VARCHAR = 17 };
typedef void (*scalar_main_function)(opaque info, opaque input, opaque output);

static struct {
  opaque (*create_scalar_function)(void);
  void (*destroy_scalar_function)(opaque *function);
  void (*scalar_function_set_name)(opaque function, const char *name);
  void (*scalar_function_add_parameter)(opaque function, opaque type);
  void (*scalar_function_set_return_type)(opaque function, opaque type);
  void (*scalar_function_set_volatile)(opaque function);
  void (*scalar_function_set_extra_info)(opaque function, void *extra, void (*destroy)(void *));
  void (*scalar_function_set_function)(opaque function, scalar_main_function main);
  int (*register_scalar_function)(opaque connection, opaque function);
  void *(*scalar_function_get_extra_info)(opaque info);
  void (*scalar_function_set_error)(opaque info, const char *message);
  opaque (*create_logical_type)(int type);
  void (*destroy_logical_type)(opaque *type);
  idx_t (*data_chunk_get_size)(opaque chunk);
  opaque (*data_chunk_get_vector)(opaque chunk, idx_t index);
  void *(*vector_get_data)(opaque vector);
  uint64_t *(*vector_get_validity)(opaque vector);
  void (*vector_ensure_validity_writable)(opaque vector);
  void (*vector_assign_string_element_len)(opaque vector, idx_t index, const char *text, idx_t length);
  bool (*validity_row_is_valid)(uint64_t *validity, idx_t row);
  void (*validity_set_row_invalid)(uint64_t *validity, idx_t row);
} api;

/* @duckdb/node-bindings' tag on its connection externals (bindings/src/type_tags.h); the external's data is a struct holding the duckdb_connection. */
static const napi_type_tag CONNECTION_TYPE_TAG = {0x922B9BF54AB04DFCULL, 0x8A258578D371DB71ULL};
/* This module's own externals. */
static const napi_type_tag FUNCTION_TYPE_TAG = {0x6D1B7E0C2A9F4C35ULL, 0x9E4F0B7A3C6D2E18ULL};
static const napi_type_tag TICKET_TYPE_TAG = {0x3B8A1F6E5D204C97ULL, 0xA7C3E9150F8B6D42ULL};

#define MAX_PARAMETERS 64
#define MESSAGE_SIZE 512

static pthread_t js_thread;
static bool bound = false;

/* One defined function; it lives as long as the process (functions come from the manifest). */
typedef struct {
  napi_threadsafe_function handler;
  int return_type;
  size_t parameter_count;
  int parameter_types[MAX_PARAMETERS];
  char name[256];
} function_state;

/* One chunk DuckDB waits on; it lives on the parked DuckDB thread's stack. */
typedef struct {
  function_state *function;
  opaque input;
  opaque output;
  idx_t rows;
  pthread_mutex_t mutex;
  pthread_cond_t woken;
  bool done;
  char error[MESSAGE_SIZE];
} pending_call;

/* What JS holds for one pending call; `call` is cleared once answered. */
typedef struct {
  pending_call *call;
} ticket;

/* Wakes the parked DuckDB thread, with an error when `message` is not NULL. The call must not be touched after. */
static void finish(pending_call *call, const char *message) {
  pthread_mutex_lock(&call->mutex);
  if (message != NULL) snprintf(call->error, sizeof call->error, "%s", message);
  call->done = true;
  pthread_cond_signal(&call->woken);
  pthread_mutex_unlock(&call->mutex);
}

/* DuckDB's worker thread: hand the chunk to JS and wait for its answer. */
static void main_function(opaque info, opaque input, opaque output) {
  function_state *function = (function_state *)api.scalar_function_get_extra_info(info);
  if (pthread_equal(pthread_self(), js_thread)) {
    api.scalar_function_set_error(info, "this function cannot run on the JS thread, where it would wait for itself");
    return;
  }
  pending_call call;
  memset(&call, 0, sizeof call);
  call.function = function;
  call.input = input;
  call.output = output;
  call.rows = api.data_chunk_get_size(input);
  pthread_mutex_init(&call.mutex, NULL);
  pthread_cond_init(&call.woken, NULL);
  if (napi_call_threadsafe_function(function->handler, &call, napi_tsfn_nonblocking) != napi_ok) {
    snprintf(call.error, sizeof call.error, "the runtime is shutting down");
    call.done = true;
  }
  pthread_mutex_lock(&call.mutex);
  while (!call.done) pthread_cond_wait(&call.woken, &call.mutex);
  pthread_mutex_unlock(&call.mutex);
  pthread_mutex_destroy(&call.mutex);
  pthread_cond_destroy(&call.woken);
  if (call.error[0] != '\0') api.scalar_function_set_error(info, call.error);
}

/* One input value as JS; false when Node-API failed. */
static bool input_value(napi_env env, int type, void *data, uint64_t *validity, idx_t row, napi_value *out) {
  if (!api.validity_row_is_valid(validity, row)) return napi_get_null(env, out) == napi_ok;
  switch (type) {
    case TYPE_BOOLEAN: return napi_get_boolean(env, ((uint8_t *)data)[row] != 0, out) == napi_ok;
    case TYPE_INTEGER: return napi_create_int32(env, ((int32_t *)data)[row], out) == napi_ok;
    case TYPE_BIGINT: return napi_create_bigint_int64(env, ((int64_t *)data)[row], out) == napi_ok;
    case TYPE_FLOAT: return napi_create_double(env, ((float *)data)[row], out) == napi_ok;
    case TYPE_DOUBLE: return napi_create_double(env, ((double *)data)[row], out) == napi_ok;
    case TYPE_VARCHAR: {
      /* duckdb_string_t: 16 bytes, a uint32 length, then the text inline (up to 12 bytes) or a 4-byte prefix and a pointer. */
      const char *entry = (const char *)data + row * 16;
      uint32_t length;
      memcpy(&length, entry, sizeof length);
      const char *text;
      if (length <= 12) {
        text = entry + 4;
      } else {
        memcpy(&text, entry + 8, sizeof text);
      }
      return napi_create_string_utf8(env, text, length, out) == napi_ok;
    }
    default: return false;
  }
}

/* The chunk's arguments as one JS array per parameter. */
static bool input_columns(napi_env env, pending_call *call, napi_value *columns) {
  function_state *function = call->function;
  if (napi_create_array_with_length(env, function->parameter_count, columns) != napi_ok) return false;
  for (size_t index = 0; index < function->parameter_count; index++) {
    opaque vector = api.data_chunk_get_vector(call->input, index);
    void *data = api.vector_get_data(vector);
    uint64_t *validity = api.vector_get_validity(vector);
    napi_value column;
    if (napi_create_array_with_length(env, call->rows, &column) != napi_ok) return false;
    for (idx_t row = 0; row < call->rows; row++) {
      napi_value value;
      if (!input_value(env, function->parameter_types[index], data, validity, row, &value)) return false;
      if (napi_set_element(env, column, (uint32_t)row, value) != napi_ok) return false;
    }
    if (napi_set_element(env, *columns, (uint32_t)index, column) != napi_ok) return false;
  }
  return true;
}

/* A ticket collected while its call still waits: the handler lost it, so the query fails rather than hangs. */
static void finalize_ticket(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ticket *held = (ticket *)data;
  if (held->call != NULL) finish(held->call, "the function's handler dropped the call without answering it");
  free(held);
}

/* The JS thread: run the handler with the chunk's arguments and a ticket to answer with. */
static void call_js(napi_env env, napi_value handler, void *context, void *data) {
  (void)context;
  pending_call *call = (pending_call *)data;
  if (env == NULL || handler == NULL) {
    finish(call, "the runtime is shutting down");
    return;
  }
  napi_value columns, rows, external, undefined;
  ticket *held = (ticket *)malloc(sizeof *held);
  if (held == NULL) {
    finish(call, "out of memory");
    return;
  }
  held->call = call;
  if (!input_columns(env, call, &columns) || napi_create_double(env, (double)call->rows, &rows) != napi_ok ||
      napi_create_external(env, held, finalize_ticket, NULL, &external) != napi_ok) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    free(held);
    finish(call, "the function's arguments could not be handed to JS");
    return;
  }
  napi_type_tag_object(env, external, &TICKET_TYPE_TAG);
  napi_get_undefined(env, &undefined);
  napi_value argv[3] = {columns, rows, external};
  if (napi_call_function(env, undefined, handler, 3, argv, NULL) != napi_ok) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    if (held->call != NULL) {
      held->call = NULL;
      finish(call, "the function's handler threw");
    }
  }
}

#define THROW(env, code, ...)                                  \
  do {                                                         \
    char message_[MESSAGE_SIZE];                               \
    snprintf(message_, sizeof message_, __VA_ARGS__);          \
    napi_throw_error((env), (code), message_);                 \
    return NULL;                                               \
  } while (0)

#define CHECK(env, call)                                                       \
  do {                                                                         \
    if ((call) != napi_ok) THROW((env), "QUARRY_NATIVE", "Node-API call failed: %s", #call); \
  } while (0)

static bool supported_type(int type) {
  return type == TYPE_BOOLEAN || type == TYPE_INTEGER || type == TYPE_BIGINT || type == TYPE_FLOAT || type == TYPE_DOUBLE || type == TYPE_VARCHAR;
}

#define LOOKUP(field, symbol)                                  \
  do {                                                         \
    *(void **)(&api.field) = dlsym(library, symbol);           \
    if (api.field == NULL) missing = symbol;                   \
  } while (0)

/* bind(libraryPath): finds the C API in the libduckdb already loaded from that path. */
static napi_value bind_library(napi_env env, napi_callback_info info) {
  void *library = loaded_libduckdb(env, info);
  if (library == NULL) return NULL;
  const char *missing = NULL;
  LOOKUP(create_scalar_function, "duckdb_create_scalar_function");
  LOOKUP(destroy_scalar_function, "duckdb_destroy_scalar_function");
  LOOKUP(scalar_function_set_name, "duckdb_scalar_function_set_name");
  LOOKUP(scalar_function_add_parameter, "duckdb_scalar_function_add_parameter");
  LOOKUP(scalar_function_set_return_type, "duckdb_scalar_function_set_return_type");
  LOOKUP(scalar_function_set_volatile, "duckdb_scalar_function_set_volatile");
  LOOKUP(scalar_function_set_extra_info, "duckdb_scalar_function_set_extra_info");
  LOOKUP(scalar_function_set_function, "duckdb_scalar_function_set_function");
  LOOKUP(register_scalar_function, "duckdb_register_scalar_function");
  LOOKUP(scalar_function_get_extra_info, "duckdb_scalar_function_get_extra_info");
  LOOKUP(scalar_function_set_error, "duckdb_scalar_function_set_error");
  LOOKUP(create_logical_type, "duckdb_create_logical_type");
  LOOKUP(destroy_logical_type, "duckdb_destroy_logical_type");
  LOOKUP(data_chunk_get_size, "duckdb_data_chunk_get_size");
  LOOKUP(data_chunk_get_vector, "duckdb_data_chunk_get_vector");
  LOOKUP(vector_get_data, "duckdb_vector_get_data");
  LOOKUP(vector_get_validity, "duckdb_vector_get_validity");
  LOOKUP(vector_ensure_validity_writable, "duckdb_vector_ensure_validity_writable");
  LOOKUP(vector_assign_string_element_len, "duckdb_vector_assign_string_element_len");
  LOOKUP(validity_row_is_valid, "duckdb_validity_row_is_valid");
  LOOKUP(validity_set_row_invalid, "duckdb_validity_set_row_invalid");
  if (missing != NULL) THROW(env, "QUARRY_NATIVE", "libduckdb lacks %s", missing);
  bound = true;
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

/* define(name, parameterTypes, returnType, handler): a function external to register on connections. */
static napi_value define(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (!bound) THROW(env, "QUARRY_NATIVE", "bind(libraryPath) was not called");
  if (argc < 4) THROW(env, "QUARRY_NATIVE", "define(name, parameterTypes, returnType, handler) takes four arguments");
  function_state *function = (function_state *)calloc(1, sizeof *function);
  if (function == NULL) THROW(env, "QUARRY_NATIVE", "out of memory");
  size_t length = 0;
  bool is_array = false;
  uint32_t count = 0;
  if (napi_get_value_string_utf8(env, argv[0], function->name, sizeof function->name, &length) != napi_ok || length == 0 || length >= sizeof function->name - 1 ||
      napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &count) != napi_ok || count > MAX_PARAMETERS ||
      napi_get_value_int32(env, argv[2], &function->return_type) != napi_ok || !supported_type(function->return_type)) {
    free(function);
    THROW(env, "QUARRY_NATIVE", "define: a name, at most %d parameter types and a return type of BOOLEAN, INTEGER, BIGINT, FLOAT, DOUBLE or VARCHAR", MAX_PARAMETERS);
  }
  function->parameter_count = count;
  for (uint32_t index = 0; index < count; index++) {
    napi_value element;
    if (napi_get_element(env, argv[1], index, &element) != napi_ok || napi_get_value_int32(env, element, &function->parameter_types[index]) != napi_ok ||
        !supported_type(function->parameter_types[index])) {
      free(function);
      THROW(env, "QUARRY_NATIVE", "define: parameter %u has an unsupported type", index);
    }
  }
  napi_value resource;
  CHECK(env, napi_create_string_utf8(env, "QuarryAsyncScalar", NAPI_AUTO_LENGTH, &resource));
  if (napi_create_threadsafe_function(env, argv[3], NULL, resource, 0, 1, NULL, NULL, NULL, call_js, &function->handler) != napi_ok) {
    free(function);
    THROW(env, "QUARRY_NATIVE", "define: the handler must be a function");
  }
  /* A waiting call is inside a query whose own async work keeps the loop alive; an idle function must not. */
  CHECK(env, napi_unref_threadsafe_function(env, function->handler));
  napi_value external;
  CHECK(env, napi_create_external(env, function, NULL, NULL, &external));
  CHECK(env, napi_type_tag_object(env, external, &FUNCTION_TYPE_TAG));
  return external;
}

static void *tagged_external(napi_env env, napi_value value, const napi_type_tag *tag) {
  napi_valuetype type = napi_undefined;
  bool tagged = false;
  void *data = NULL;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  if (napi_check_object_type_tag(env, value, tag, &tagged) != napi_ok || !tagged) return NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok) return NULL;
  return data;
}

/* register(connectionExternal, functionExternal): adds the function to a connection's catalog. */
static napi_value register_function(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) THROW(env, "QUARRY_NATIVE", "register(connection, function) takes two arguments");
  opaque *holder = (opaque *)tagged_external(env, argv[0], &CONNECTION_TYPE_TAG);
  if (holder == NULL || *holder == NULL) THROW(env, "QUARRY_NATIVE", "register: the first argument is not an open connection of @duckdb/node-bindings");
  function_state *function = (function_state *)tagged_external(env, argv[1], &FUNCTION_TYPE_TAG);
  if (function == NULL) THROW(env, "QUARRY_NATIVE", "register: the second argument is not a function from define()");
  opaque scalar = api.create_scalar_function();
  api.scalar_function_set_name(scalar, function->name);
  for (size_t index = 0; index < function->parameter_count; index++) {
    opaque type = api.create_logical_type(function->parameter_types[index]);
    api.scalar_function_add_parameter(scalar, type);
    api.destroy_logical_type(&type);
  }
  opaque type = api.create_logical_type(function->return_type);
  api.scalar_function_set_return_type(scalar, type);
  api.destroy_logical_type(&type);
  /* Volatile: a call with constant arguments must not be folded while the statement binds. */
  api.scalar_function_set_volatile(scalar);
  api.scalar_function_set_extra_info(scalar, function, NULL);
  api.scalar_function_set_function(scalar, main_function);
  int state = api.register_scalar_function(*holder, scalar);
  api.destroy_scalar_function(&scalar);
  if (state != 0) THROW(env, "QUARRY_NATIVE", "the engine refused to register function %s", function->name);
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

/* Writes one JS value into the output; the reason in `message` when it does not fit the type. */
static bool output_value(napi_env env, pending_call *call, idx_t row, napi_value value, char *message) {
  napi_valuetype kind;
  if (napi_typeof(env, value, &kind) != napi_ok) return false;
  opaque output = call->output;
  if (kind == napi_null || kind == napi_undefined) {
    api.vector_ensure_validity_writable(output);
    api.validity_set_row_invalid(api.vector_get_validity(output), row);
    return true;
  }
  void *data = api.vector_get_data(output);
  const char *name = call->function->name;
  switch (call->function->return_type) {
    case TYPE_BOOLEAN:
      if (kind == napi_boolean) {
        bool flag;
        napi_get_value_bool(env, value, &flag);
        ((uint8_t *)data)[row] = flag ? 1 : 0;
        return true;
      }
      break;
    case TYPE_INTEGER:
      if (kind == napi_number) {
        double number;
        napi_get_value_double(env, value, &number);
        if (number == trunc(number) && number >= INT32_MIN && number <= INT32_MAX) {
          ((int32_t *)data)[row] = (int32_t)number;
          return true;
        }
      }
      break;
    case TYPE_BIGINT:
      if (kind == napi_bigint) {
        bool lossless;
        napi_get_value_bigint_int64(env, value, &((int64_t *)data)[row], &lossless);
        if (lossless) return true;
      }
      break;
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
      if (kind == napi_number) {
        double number;
        napi_get_value_double(env, value, &number);
        if (call->function->return_type == TYPE_FLOAT) ((float *)data)[row] = (float)number;
        else ((double *)data)[row] = number;
        return true;
      }
      break;
    case TYPE_VARCHAR:
      if (kind == napi_string) {
        size_t length = 0;
        napi_get_value_string_utf8(env, value, NULL, 0, &length);
        char *text = (char *)malloc(length + 1);
        if (text == NULL) {
          snprintf(message, MESSAGE_SIZE, "out of memory for value %llu of function %s", (unsigned long long)row, name);
          return false;
        }
        napi_get_value_string_utf8(env, value, text, length + 1, &length);
        api.vector_assign_string_element_len(output, row, text, length);
        free(text);
        return true;
      }
      break;
  }
  snprintf(message, MESSAGE_SIZE, "value %llu does not fit the declared return type", (unsigned long long)row);
  return false;
}

/* complete(ticket, values, error): answers a pending call and wakes its DuckDB thread. */
static napi_value complete(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  ticket *held = argc < 3 ? NULL : (ticket *)tagged_external(env, argv[0], &TICKET_TYPE_TAG);
  if (held == NULL) THROW(env, "QUARRY_NATIVE", "complete(ticket, values, error) takes the ticket the handler was given");
  if (held->call == NULL) THROW(env, "QUARRY_NATIVE", "this call was already answered");
  pending_call *call = held->call;
  held->call = NULL;
  napi_valuetype kind;
  CHECK(env, napi_typeof(env, argv[2], &kind));
  char message[MESSAGE_SIZE] = {0};
  if (kind == napi_string) {
    size_t length = 0;
    napi_get_value_string_utf8(env, argv[2], message, sizeof message, &length);
    finish(call, message);
  } else {
    bool is_array = false;
    uint32_t count = 0;
    if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &count) != napi_ok || count != call->rows) {
      snprintf(message, sizeof message, "expected %llu values, got %u", (unsigned long long)call->rows, is_array ? count : 0);
      finish(call, message);
    } else {
      bool written = true;
      for (uint32_t row = 0; row < count && written; row++) {
        napi_value value;
        written = napi_get_element(env, argv[1], row, &value) == napi_ok && output_value(env, call, row, value, message);
        if (!written && message[0] == '\0') snprintf(message, sizeof message, "value %u could not be read", row);
      }
      finish(call, written ? NULL : message);
    }
  }
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

static napi_value init(napi_env env, napi_value exports) {
  js_thread = pthread_self();
  napi_property_descriptor properties[] = {
      {"bind", NULL, bind_library, NULL, NULL, NULL, napi_default, NULL},
      {"define", NULL, define, NULL, NULL, NULL, napi_default, NULL},
      {"register", NULL, register_function, NULL, NULL, NULL, napi_default, NULL},
      {"complete", NULL, complete, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
