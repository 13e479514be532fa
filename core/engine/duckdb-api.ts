import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';

/*
 * The values of @duckdb/node-api, for the modules that load at start-up. The package is
 * CommonJS: imported from ESM, Node first lexes its index and each of the ~120 files it
 * re-exports to find their export names, ~100 ms of start-up on top of loading it. Required
 * here, it loads once without that. Types still come from '@duckdb/node-api' (`import type`);
 * a class or enum needed as a value is imported from here (the type alias of the same name
 * keeps `DuckDBInstance` usable as a type too).
 */
const api = createRequire(import.meta.url)('@duckdb/node-api') as typeof DuckDB;

export const DuckDBInstance = api.DuckDBInstance;
export type DuckDBInstance = DuckDB.DuckDBInstance;
export const DuckDBDataChunk = api.DuckDBDataChunk;
export type DuckDBDataChunk = DuckDB.DuckDBDataChunk;
export const DuckDBVector = api.DuckDBVector;
export type DuckDBVector = DuckDB.DuckDBVector;
export const JsonDuckDBValueConverter = api.JsonDuckDBValueConverter;
export const DuckDBMaterializedResult = api.DuckDBMaterializedResult;
export type DuckDBMaterializedResult = DuckDB.DuckDBMaterializedResult;
export const StatementType = api.StatementType;
export type StatementType = DuckDB.StatementType;
export const DuckDBTypeId = api.DuckDBTypeId;
export type DuckDBTypeId = DuckDB.DuckDBTypeId;

export const DuckDBArrayType = api.DuckDBArrayType;
export type DuckDBArrayType = DuckDB.DuckDBArrayType;
export const DuckDBDecimalType = api.DuckDBDecimalType;
export type DuckDBDecimalType = DuckDB.DuckDBDecimalType;
export const DuckDBEnumType = api.DuckDBEnumType;
export type DuckDBEnumType = DuckDB.DuckDBEnumType;
export const DuckDBListType = api.DuckDBListType;
export type DuckDBListType = DuckDB.DuckDBListType;
export const DuckDBMapType = api.DuckDBMapType;
export type DuckDBMapType = DuckDB.DuckDBMapType;
export const DuckDBStructType = api.DuckDBStructType;
export type DuckDBStructType = DuckDB.DuckDBStructType;
export const DuckDBUnionType = api.DuckDBUnionType;
export type DuckDBUnionType = DuckDB.DuckDBUnionType;

export const DuckDBBlobValue = api.DuckDBBlobValue;
export type DuckDBBlobValue = DuckDB.DuckDBBlobValue;
export const DuckDBDateValue = api.DuckDBDateValue;
export type DuckDBDateValue = DuckDB.DuckDBDateValue;
export const DuckDBDecimalValue = api.DuckDBDecimalValue;
export type DuckDBDecimalValue = DuckDB.DuckDBDecimalValue;
export const DuckDBListValue = api.DuckDBListValue;
export type DuckDBListValue = DuckDB.DuckDBListValue;
export const DuckDBTimestampTZValue = api.DuckDBTimestampTZValue;
export type DuckDBTimestampTZValue = DuckDB.DuckDBTimestampTZValue;
export const DuckDBTimestampValue = api.DuckDBTimestampValue;
export type DuckDBTimestampValue = DuckDB.DuckDBTimestampValue;
export const DuckDBUUIDValue = api.DuckDBUUIDValue;
export type DuckDBUUIDValue = DuckDB.DuckDBUUIDValue;

export const DuckDBScalarFunction = api.DuckDBScalarFunction;
export type DuckDBScalarFunction = DuckDB.DuckDBScalarFunction;
export const { BIGINT, BOOLEAN, DOUBLE, FLOAT, INTEGER, VARCHAR } = api;
