/*
 * Arrow column buffers filled from DuckDB vectors, for native/duckdb-batch-fetch.c: values,
 * validity bitmap and offsets of one column of the batch being built, and how each kind of
 * column is appended. Every append returns NULL, or a message when memory ran out or a limit
 * was passed (the column is then left as it was or partly appended: the batch is dropped).
 */
#ifndef QUARRY_ARROW_COLUMNS_H
#define QUARRY_ARROW_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "duckdb-string.h"

/* How a column becomes Arrow (the plan's kinds, named alike in native-batches.ts). */
enum column_kind {
  /* Same little-endian values: memcpy of `source_width` bytes a row. */
  KIND_FIXED = 0,
  /* A byte a value → a bit a value. */
  KIND_BOOLEAN = 1,
  /* A signed integer of `source_width` bytes → `target_width` bytes, sign-extended (decimals). */
  KIND_WIDEN = 2,
  /* string_t → int32 offsets and bytes. */
  KIND_STRING = 3,
};

#define MAX_OFFSET INT32_MAX

typedef struct {
  uint8_t *bytes;
  size_t length;
  size_t capacity;
} buffer;

typedef struct {
  int kind;
  int source_width;
  int target_width;
  /* Values (bits for BOOLEAN, bytes for STRING). */
  buffer values;
  /* STRING: int32 offsets, rows + 1 of them. */
  buffer offsets;
  /* Materialised at the first null of a batch; until then every row is valid. */
  buffer validity;
  int64_t null_count;
  /* What the last batch's buffers held: the next batch starts with room for as much. */
  size_t last_values;
  size_t last_offsets;
} column;

/* Room for `additional` more bytes; false when memory ran out. */
static bool reserve(buffer *target, size_t additional, size_t initial) {
  size_t needed = target->length + additional;
  if (needed <= target->capacity) return true;
  size_t capacity = target->capacity > 0 ? target->capacity : (initial > 64 ? initial : 64);
  while (capacity < needed) capacity *= 2;
  uint8_t *grown = realloc(target->bytes, capacity);
  if (grown == NULL) return false;
  target->bytes = grown;
  target->capacity = capacity;
  return true;
}

static void release_buffer(buffer *target) {
  free(target->bytes);
  target->bytes = NULL;
  target->length = 0;
  target->capacity = 0;
}

static bool row_valid(const uint64_t *mask, int64_t row) {
  return mask == NULL || ((mask[row >> 6] >> (row & 63)) & 1) != 0;
}

static void set_bit(uint8_t *bits, int64_t index, bool value) {
  if (value) bits[index >> 3] |= (uint8_t)(1u << (index & 7));
  else bits[index >> 3] &= (uint8_t)~(1u << (index & 7));
}

/* Appends rows from..from+count of `mask` to the column's bitmap for the batch rows at..at+count. */
static const char *append_validity(column *c, const uint64_t *mask, int64_t from, int64_t count, int64_t at) {
  int64_t nulls = 0;
  if (mask != NULL) {
    for (int64_t i = 0; i < count; i++) nulls += row_valid(mask, from + i) ? 0 : 1;
  }
  if (nulls == 0 && c->validity.bytes == NULL) return NULL;
  size_t needed = (size_t)((at + count + 7) >> 3);
  buffer *bitmap = &c->validity;
  if (bitmap->bytes == NULL) {
    /* The first null of the batch: every earlier row was valid. */
    if (!reserve(bitmap, needed, needed)) {
      return "out of memory for a validity bitmap";
    }
    size_t full = (size_t)(at >> 3);
    memset(bitmap->bytes, 0xFF, full);
    bitmap->length = full;
    if ((at & 7) != 0) bitmap->bytes[bitmap->length++] = (uint8_t)((1u << (at & 7)) - 1);
  }
  if (needed > bitmap->length) {
    if (!reserve(bitmap, needed - bitmap->length, needed)) {
      return "out of memory for a validity bitmap";
    }
    memset(bitmap->bytes + bitmap->length, 0, needed - bitmap->length);
    bitmap->length = needed;
  }
  for (int64_t i = 0; i < count; i++) set_bit(bitmap->bytes, at + i, row_valid(mask, from + i));
  c->null_count += nulls;
  return NULL;
}

static const char *append_fixed(column *c, const uint8_t *data, int64_t from, int64_t count) {
  size_t bytes = (size_t)count * (size_t)c->source_width;
  if (!reserve(&c->values, bytes, c->last_values)) {
    return "out of memory for a batch's values";
  }
  memcpy(c->values.bytes + c->values.length, data + (size_t)from * (size_t)c->source_width, bytes);
  c->values.length += bytes;
  return NULL;
}

static const char *append_boolean(column *c, const uint8_t *data, int64_t from, int64_t count, int64_t batch_rows) {
  size_t needed = (size_t)((batch_rows + count + 7) >> 3);
  if (needed > c->values.length && !reserve(&c->values, needed - c->values.length, c->last_values)) {
    return "out of memory for a batch's values";
  }
  if (needed > c->values.length) {
    memset(c->values.bytes + c->values.length, 0, needed - c->values.length);
    c->values.length = needed;
  }
  for (int64_t i = 0; i < count; i++) set_bit(c->values.bytes, batch_rows + i, data[from + i] != 0);
  return NULL;
}

static const char *append_widened(column *c, const uint8_t *data, int64_t from, int64_t count) {
  size_t width = (size_t)c->target_width;
  if (!reserve(&c->values, (size_t)count * width, c->last_values)) {
    return "out of memory for a batch's values";
  }
  uint8_t *out = c->values.bytes + c->values.length;
  for (int64_t i = 0; i < count; i++, out += width) {
    int64_t value;
    int64_t row = from + i;
    if (c->source_width == 2) value = ((const int16_t *)data)[row];
    else if (c->source_width == 4) value = ((const int32_t *)data)[row];
    else value = ((const int64_t *)data)[row];
    memcpy(out, &value, sizeof value);
    memset(out + sizeof value, value < 0 ? 0xFF : 0x00, width - sizeof value);
  }
  c->values.length += (size_t)count * width;
  return NULL;
}

static const char *append_strings(column *c, const uint8_t *data, const uint64_t *mask, int64_t from, int64_t count, int64_t batch_rows) {
  const duckdb_string_t *strings = (const duckdb_string_t *)data;
  size_t total = 0;
  for (int64_t i = 0; i < count; i++) {
    if (row_valid(mask, from + i)) total += strings[from + i].value.inlined.length;
  }
  if (c->values.length + total > MAX_OFFSET) {
    return "a string column exceeds 2 GiB in one batch; lower the batch size";
  }
  if (!reserve(&c->values, total, c->last_values) || !reserve(&c->offsets, (size_t)(count + (batch_rows == 0 ? 1 : 0)) * 4, c->last_offsets)) {
    return "out of memory for a batch's strings";
  }
  int32_t *offsets = (int32_t *)c->offsets.bytes;
  if (batch_rows == 0) {
    offsets[0] = 0;
    c->offsets.length = 4;
  }
  int64_t at = batch_rows + 1;
  size_t position = c->values.length;
  for (int64_t i = 0; i < count; i++, at++) {
    const duckdb_string_t *value = &strings[from + i];
    if (row_valid(mask, from + i)) {
      uint32_t length = value->value.inlined.length;
      memcpy(c->values.bytes + position, duckdb_string_bytes(value), length);
      position += length;
    }
    offsets[at] = (int32_t)position;
  }
  c->values.length = position;
  c->offsets.length += (size_t)count * 4;
  return NULL;
}

/* Appends rows from..from+count of a vector (its data and validity mask) as the batch's rows batch_rows.. */
static const char *append_column(column *c, const uint8_t *data, const uint64_t *mask, int64_t from, int64_t count, int64_t batch_rows) {
  const char *failure = append_validity(c, mask, from, count, batch_rows);
  if (failure != NULL) return failure;
  switch (c->kind) {
    case KIND_FIXED: return append_fixed(c, data, from, count);
    case KIND_BOOLEAN: return append_boolean(c, data, from, count, batch_rows);
    case KIND_WIDEN: return append_widened(c, data, from, count);
    case KIND_STRING: return append_strings(c, data, mask, from, count, batch_rows);
    default: return "a column of unknown kind";
  }
}

#endif
