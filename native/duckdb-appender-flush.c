/*
 * Flushes a DuckDB appender on a libuv worker thread.
 *
 * @duckdb/node-bindings offers only appender_flush_sync, which runs on the JS thread: DuckDB's
 * flush costs about a millisecond however few rows it writes (a commit without a transaction,
 * more), and task history flushes every 100 ms under load and a cluster merge once per query,
 * each blocking every other request for that long. Here the flush runs as async work; the
 * JS side awaits it before it touches the appender again (core/engine/append.ts).
 *
 * The appender is the external the bindings made for it (checked by its type tag); a reference
 * keeps it alive until the flush is done.
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

typedef void *duckdb_appender;

static int (*appender_flush)(duckdb_appender appender) = NULL;
static const char *(*appender_error)(duckdb_appender appender) = NULL;

/* The type tag @duckdb/node-bindings puts on its appender externals (bindings/src/type_tags.h). */
static const napi_type_tag APPENDER_TYPE_TAG = {0x32E0AB3B83F74A89ULL, 0xB785905D92D54996ULL};

typedef struct {
  duckdb_appender appender;
  napi_ref appender_ref;
  napi_deferred deferred;
  napi_async_work work;
  bool failed;
  /* DuckDB's message, copied on the worker (the appender owns the original). */
  char *message;
} flush_job;

static napi_value bind_library(napi_env env, napi_callback_info info) {
  void *library = loaded_libduckdb(env, info);
  if (library == NULL) return NULL;
  appender_flush = (int (*)(duckdb_appender))dlsym(library, "duckdb_appender_flush");
  appender_error = (const char *(*)(duckdb_appender))dlsym(library, "duckdb_appender_error");
  if (appender_flush == NULL || appender_error == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "libduckdb lacks duckdb_appender_flush or duckdb_appender_error");
    return NULL;
  }
  napi_value undefined;
  CHECK(env, napi_get_undefined(env, &undefined));
  return undefined;
}

static void run_flush(napi_env env, void *data) {
  (void)env;
  flush_job *job = data;
  /* duckdb_state: 0 is success. */
  if (appender_flush(job->appender) != 0) {
    job->failed = true;
    const char *message = appender_error(job->appender);
    job->message = strdup(message != NULL ? message : "the appender could not flush");
  }
}

static void flush_done(napi_env env, napi_status status, void *data) {
  flush_job *job = data;
  napi_value outcome;
  if (status == napi_ok && !job->failed) {
    napi_get_undefined(env, &outcome);
    napi_resolve_deferred(env, job->deferred, outcome);
  } else {
    napi_value code, message;
    napi_create_string_utf8(env, "QUARRY_NATIVE", NAPI_AUTO_LENGTH, &code);
    napi_create_string_utf8(env, job->message != NULL ? job->message : "the flush did not run", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, code, message, &outcome);
    napi_reject_deferred(env, job->deferred, outcome);
  }
  napi_delete_reference(env, job->appender_ref);
  napi_delete_async_work(env, job->work);
  free(job->message);
  free(job);
}

/* flush(appender): a promise settled once DuckDB flushed the appender (rejected with its message). */
static napi_value flush(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (appender_flush == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "bind(libraryPath) was not called");
    return NULL;
  }
  napi_valuetype kind = napi_undefined;
  bool tagged = false;
  duckdb_appender appender = NULL;
  if (argc < 1 || napi_typeof(env, argv[0], &kind) != napi_ok || kind != napi_external ||
      napi_check_object_type_tag(env, argv[0], &APPENDER_TYPE_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[0], &appender) != napi_ok || appender == NULL) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "flush(appender) takes a DuckDB appender external of @duckdb/node-bindings");
    return NULL;
  }
  flush_job *job = calloc(1, sizeof(flush_job));
  if (job == NULL) {
    napi_throw_error(env, "QUARRY_NATIVE", "out of memory for a flush");
    return NULL;
  }
  job->appender = appender;
  napi_value promise, name;
  if (napi_create_promise(env, &job->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "quarry:duckdb-appender-flush", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, run_flush, flush_done, job, &job->work) != napi_ok) {
    free(job);
    napi_throw_error(env, "QUARRY_NATIVE", "could not start the flush");
    return NULL;
  }
  CHECK(env, napi_create_reference(env, argv[0], 1, &job->appender_ref));
  CHECK(env, napi_queue_async_work(env, job->work));
  return promise;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"bind", NULL, bind_library, NULL, NULL, NULL, napi_default, NULL},
      {"flush", NULL, flush, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
