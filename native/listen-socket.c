/*
 * A second file descriptor for a listening socket (dup with close-on-exec).
 *
 * libuv accepts at most one connection per turn of the event loop for each listening handle
 * (libuv 1.45, "unix: don't accept() connections in a loop"). Under load a turn of quarryd's
 * loop lasts tens of milliseconds, so fifty clients connecting at once waited up to a second
 * for their turn to be accepted. A Node server listening on a duplicate of the same socket is
 * a second libuv handle on the same accept queue: each accepts one connection per turn, and
 * the kernel hands every pending connection to exactly one of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <node_api.h>
#include "napi-check.h"

/* duplicate(fd): a new descriptor (close-on-exec) for the same listening socket. */
static napi_value duplicate(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t fd = -1;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, "QUARRY_NATIVE", "duplicate(fd) takes a listening socket's descriptor");
    return NULL;
  }
  int listening = 0;
  socklen_t length = sizeof listening;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening) {
    napi_throw_error(env, "QUARRY_NATIVE", "duplicate(fd): the descriptor is not a listening socket");
    return NULL;
  }
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) {
    napi_throw_error(env, "QUARRY_NATIVE", strerror(errno));
    return NULL;
  }
  napi_value answer;
  CHECK(env, napi_create_int32(env, copy, &answer));
  return answer;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"duplicate", NULL, duplicate, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
