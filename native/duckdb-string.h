/* DuckDB's string_t, shared by the helpers that read VARCHAR and BLOB vectors. */
#ifndef QUARRY_DUCKDB_STRING_H
#define QUARRY_DUCKDB_STRING_H

#include <stdint.h>

/* duckdb.h's string_t, by value: the npm packages ship libduckdb without its header. */
typedef struct {
  union {
    struct {
      uint32_t length;
      char prefix[4];
      const char *ptr;
    } pointer;
    struct {
      uint32_t length;
      char inlined[12];
    } inlined;
  } value;
} duckdb_string_t;

/* Longest string kept inline. */
#define INLINE_LIMIT 12

static inline const char *duckdb_string_bytes(const duckdb_string_t *value) {
  return value->value.inlined.length <= INLINE_LIMIT ? value->value.inlined.inlined : value->value.pointer.ptr;
}

#endif
