/* Shared by the DuckDB helpers: their bind(libraryPath) finds the libduckdb already loaded. */
#ifndef QUARRY_LOADED_LIBDUCKDB_H
#define QUARRY_LOADED_LIBDUCKDB_H

#include <dlfcn.h>
#include <node_api.h>

/*
 * The handle of the libduckdb @duckdb/node-bindings loaded from the path given as bind()'s first
 * argument (RTLD_NOLOAD: never a second copy), or NULL with a QUARRY_NATIVE error thrown. The
 * library stays loaded by the bindings; the handle only raises its count by one.
 */
static void *loaded_libduckdb(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char path[4096];
  size_t length = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_string_utf8(env, argv[0], path, sizeof path, &length) != napi_ok || length >= sizeof path - 1) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "bind(libraryPath) takes the path of the loaded libduckdb");
    return NULL;
  }
  void *library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (library == NULL) napi_throw_error(env, "QUARRY_NATIVE", "libduckdb is not loaded from that path (load @duckdb/node-api first)");
  return library;
}

#endif
