{
  "targets": [
    {
      "target_name": "duckdb_result_status",
      "sources": ["duckdb-result-status.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"],
      "libraries": ["-ldl"]
    },
    {
      "target_name": "duckdb_async_scalar",
      "sources": ["duckdb-async-scalar.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"],
      "libraries": ["-ldl", "-lpthread", "-lm"]
    },
    {
      "target_name": "duckdb_string_vector",
      "sources": ["duckdb-string-vector.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"],
      "libraries": ["-ldl"]
    },
    {
      "target_name": "duckdb_batch_fetch",
      "sources": ["duckdb-batch-fetch.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"],
      "libraries": ["-ldl"]
    },
    {
      "target_name": "duckdb_appender_flush",
      "sources": ["duckdb-appender-flush.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"],
      "libraries": ["-ldl"]
    },
    {
      "target_name": "listen_socket",
      "sources": ["listen-socket.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"]
    }
  ]
}
