/* Shared by the Node-API helpers whose functions return napi_value. */
#ifndef QUARRY_NAPI_CHECK_H
#define QUARRY_NAPI_CHECK_H

#include <node_api.h>

/* Throws QUARRY_NATIVE naming the Node-API call that failed, and returns NULL from the caller. */
#define CHECK(env, call)                                                     \
  do {                                                                       \
    if ((call) != napi_ok) {                                                 \
      napi_throw_error((env), "QUARRY_NATIVE", "Node-API call failed: " #call); \
      return NULL;                                                           \
    }                                                                        \
  } while (0)

#endif
