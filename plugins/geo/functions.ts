import { BOOLEAN, DOUBLE, GEOMETRY, INTEGER, VARCHAR, DuckDBScalarFunction, geometryValue, type DuckDBGeometryValue, type DuckDBType } from '@duckdb/node-api';
import type { Shape } from './shape.js';
import Location from 'jsts/org/locationtech/jts/geom/Location.js';
import WKTReader from 'jsts/org/locationtech/jts/io/WKTReader.js';
import BufferOp from 'jsts/org/locationtech/jts/operation/buffer/BufferOp.js';
import DistanceOp from 'jsts/org/locationtech/jts/operation/distance/DistanceOp.js';
import RelateOp from 'jsts/org/locationtech/jts/operation/relate/RelateOp.js';
import { functionErrorMessage } from '../../core/engine/engine-errors.js';
import { GEO_CODES } from './errors.js';
import { GeometryDecoder, type DecodedGeometry } from './geometry-cache.js';
import { WkbError, writeWkb } from './wkb.js';

/** A failure with its stable code; the UDF wrapper reports it as `[CODE] ST_Name: message`. */
class GeoError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What an ST_* function computes for one row; arguments arrive as DuckDB gives them (GEOMETRY as decoded geometries). */
type Compute = (args: unknown[], decoder: GeometryDecoder) => unknown;

export interface GeoFunction {
  readonly name: string;
  readonly parameters: ReadonlyArray<{ name: string; type: DuckDBType }>;
  readonly returns: DuckDBType;
  readonly compute: Compute;
}

const geometry = (name: string) => ({ name, type: GEOMETRY as DuckDBType });
const double = (name: string) => ({ name, type: DOUBLE as DuckDBType });

const WKT_EXAMPLES = 'e.g. POINT (1 2), LINESTRING (0 0, 1 1) or POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))';

function asGeometry(value: unknown): DecodedGeometry {
  return value as DecodedGeometry;
}

/** A point's coordinate, or the reason it has none; ST_X / ST_Y of an empty point is NULL, as in PostGIS. */
function pointOrdinate(value: unknown, axis: 'x' | 'y'): number | null {
  const point = asGeometry(value).point;
  if (point) return point[axis];
  const decoded = asGeometry(value).geometry;
  if (decoded.getGeometryType() !== 'Point') throw new GeoError(GEO_CODES.invalidArgument, `expected a POINT, got a ${decoded.getGeometryType().toUpperCase()}`);
  if (decoded.isEmpty()) return null;
  const coordinate = decoded.getCoordinate() as { x: number; y: number };
  return coordinate[axis];
}

/** The summed length of the lineal parts: polygons have length 0 (their boundary is ST_Perimeter), as in PostGIS and DuckDB spatial. */
function linealLength(shape: Shape): number {
  const kind = shape.getGeometryType();
  if (kind === 'LineString' || kind === 'LinearRing' || kind === 'MultiLineString') return shape.getLength();
  if (kind === 'GeometryCollection') {
    let total = 0;
    for (let index = 0; index < shape.getNumGeometries(); index++) total += linealLength(shape.getGeometryN(index));
    return total;
  }
  return 0;
}

/** The perimeter of the polygonal parts (lines and points count 0). */
function perimeter(shape: Shape): number {
  const kind = shape.getGeometryType();
  if (kind === 'Polygon' || kind === 'MultiPolygon') return shape.getLength();
  if (kind === 'GeometryCollection') {
    let total = 0;
    for (let index = 0; index < shape.getNumGeometries(); index++) total += perimeter(shape.getGeometryN(index));
    return total;
  }
  return 0;
}

/** A non-empty point's coordinate, for the indexed point-in-polygon path. */
function pointCoordinate(decoded: DecodedGeometry): unknown {
  return decoded.point;
}

/**
 * `a contains b`. When a is a repeated polygon and b a point (a point-in-polygon join) the
 * polygon's index answers: contained means strictly inside (a point on the boundary is not,
 * per OGC). Otherwise JTS's full relate computes it. Both give the same answer.
 */
function contains(a: DecodedGeometry, b: DecodedGeometry): boolean {
  const point = pointCoordinate(b);
  const locator = point === undefined ? undefined : a.pointLocator();
  if (locator) return locator.locate(point) === Location.INTERIOR;
  return RelateOp.contains(a.geometry, b.geometry) as boolean;
}

/** `a intersects b`, through the polygon's index when one side is a repeated polygon and the other a point. */
function intersects(a: DecodedGeometry, b: DecodedGeometry): boolean {
  for (const [area, other] of [[a, b], [b, a]] as const) {
    const point = pointCoordinate(other);
    const locator = point === undefined ? undefined : area.pointLocator();
    if (locator) return locator.locate(point) !== Location.EXTERIOR;
  }
  return RelateOp.intersects(a.geometry, b.geometry) as boolean;
}

function buffer(shape: DecodedGeometry, distance: number, quadrantSegments: number): Uint8Array {
  if (!Number.isInteger(quadrantSegments) || quadrantSegments < 1 || quadrantSegments > 1000) {
    throw new GeoError(GEO_CODES.invalidArgument, `segments per quarter circle must be a whole number from 1 to 1000, got ${quadrantSegments}`);
  }
  if (!Number.isFinite(distance)) throw new GeoError(GEO_CODES.invalidArgument, `the buffer distance must be a finite number, got ${distance}`);
  return writeWkb(BufferOp.bufferOp(shape.geometry, distance, quadrantSegments));
}

/** JTS's default: 8 segments per quarter circle (a circle of 32 sides). */
const DEFAULT_QUADRANT_SEGMENTS = 8;

/**
 * The spatial functions, planar (Cartesian units of the coordinates; no geodesic math).
 * ST_AsText, ST_AsWKB and ST_GeomFromWKB are not here: DuckDB's core has them for its GEOMETRY type.
 */
export function geoFunctions(reader: WKTReader): GeoFunction[] {
  return [
    {
      name: 'ST_Point',
      parameters: [double('x'), double('y')],
      returns: GEOMETRY,
      compute: ([x, y]) => pointWkb(x as number, y as number),
    },
    {
      name: 'ST_GeomFromText',
      parameters: [{ name: 'wkt', type: VARCHAR }],
      returns: GEOMETRY,
      compute: ([text]) => {
        let parsed: Shape;
        try {
          parsed = reader.read(text as string);
        } catch (error) {
          const shown = (text as string).length > 80 ? `${(text as string).slice(0, 80)}...` : (text as string);
          throw new GeoError(GEO_CODES.invalidGeometry, `${JSON.stringify(shown)} is not well-known text (${(error as Error).message}); expected ${WKT_EXAMPLES}`);
        }
        return writeWkb(parsed);
      },
    },
    { name: 'ST_X', parameters: [geometry('point')], returns: DOUBLE, compute: ([point]) => pointOrdinate(point, 'x') },
    { name: 'ST_Y', parameters: [geometry('point')], returns: DOUBLE, compute: ([point]) => pointOrdinate(point, 'y') },
    {
      name: 'ST_Distance',
      parameters: [geometry('a'), geometry('b')],
      returns: DOUBLE,
      compute: ([a, b]) => DistanceOp.distance(asGeometry(a).geometry, asGeometry(b).geometry) as number,
    },
    { name: 'ST_Contains', parameters: [geometry('a'), geometry('b')], returns: BOOLEAN, compute: ([a, b]) => contains(asGeometry(a), asGeometry(b)) },
    { name: 'ST_Within', parameters: [geometry('a'), geometry('b')], returns: BOOLEAN, compute: ([a, b]) => contains(asGeometry(b), asGeometry(a)) },
    { name: 'ST_Intersects', parameters: [geometry('a'), geometry('b')], returns: BOOLEAN, compute: ([a, b]) => intersects(asGeometry(a), asGeometry(b)) },
    { name: 'ST_Area', parameters: [geometry('shape')], returns: DOUBLE, compute: ([shape]) => asGeometry(shape).geometry.getArea() },
    { name: 'ST_Length', parameters: [geometry('shape')], returns: DOUBLE, compute: ([shape]) => linealLength(asGeometry(shape).geometry) },
    { name: 'ST_Perimeter', parameters: [geometry('shape')], returns: DOUBLE, compute: ([shape]) => perimeter(asGeometry(shape).geometry) },
    {
      name: 'ST_Buffer',
      parameters: [geometry('shape'), double('distance')],
      returns: GEOMETRY,
      compute: ([shape, distance]) => buffer(asGeometry(shape), distance as number, DEFAULT_QUADRANT_SEGMENTS),
    },
    {
      name: 'ST_Buffer',
      parameters: [geometry('shape'), double('distance'), { name: 'segments', type: INTEGER }],
      returns: GEOMETRY,
      compute: ([shape, distance, segments]) => buffer(asGeometry(shape), distance as number, segments as number),
    },
    { name: 'ST_GeometryType', parameters: [geometry('shape')], returns: VARCHAR, compute: ([shape]) => asGeometry(shape).geometry.getGeometryType().toUpperCase() },
  ];
}

/** A point's WKB written directly: ST_Point runs per row and needs no JTS object. */
function pointWkb(x: number, y: number): Uint8Array {
  const bytes = new Uint8Array(21);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, 1);
  view.setUint32(1, 1, true);
  view.setFloat64(5, x, true);
  view.setFloat64(13, y, true);
  return bytes;
}

/**
 * The DuckDB UDF of one function. NULL arguments give NULL without a call (DuckDB's default
 * null handling). GEOMETRY arguments are decoded (through the cache) before `compute`;
 * a failure stops the query with `[CODE] ST_Name: message`, which the engine maps to CODE.
 */
export function scalarFunction(definition: GeoFunction, decoder: GeometryDecoder): DuckDBScalarFunction {
  const isGeometry = definition.parameters.map((parameter) => parameter.type === GEOMETRY);
  const returnsGeometry = definition.returns === GEOMETRY;
  return DuckDBScalarFunction.create({
    name: definition.name.toLowerCase(),
    returnType: definition.returns,
    parameterTypes: definition.parameters.map((parameter) => parameter.type),
    mainFunction: (info, input, output) => {
      const columns = definition.parameters.map((_, index) => input.getColumnVector(index));
      const args = new Array<unknown>(columns.length);
      // A constant argument (the polygon of a point-in-polygon filter) repeats on every row:
      // comparing its bytes with the previous row's (memcmp) skips even the cache lookup.
      const previous: Array<{ bytes: Buffer; decoded: DecodedGeometry } | undefined> = new Array(columns.length);
      const rowCount = input.rowCount;
      for (let row = 0; row < rowCount; row++) {
        try {
          let hasNull = false;
          for (let index = 0; index < columns.length; index++) {
            const value = columns[index]!.getItem(row);
            hasNull ||= value === null;
            args[index] = isGeometry[index] && value !== null ? decodeRepeated(decoder, (value as DuckDBGeometryValue).bytes, previous, index) : value;
          }
          // DuckDB masks rows with a NULL argument to NULL itself; they are never computed.
          if (hasNull) {
            output.setItem(row, null);
            continue;
          }
          const result = definition.compute(args, decoder);
          output.setItem(row, (returnsGeometry && result !== null ? geometryValue(result as Uint8Array) : result) as never);
        } catch (error) {
          info.setError(functionErrorMessage(codeOf(error), `${definition.name}: ${messageOf(error)}`));
          return;
        }
      }
      output.flush();
    },
  });
}

/** Decodes a GEOMETRY argument, reusing the previous row's geometry of that argument when the bytes are equal. */
function decodeRepeated(decoder: GeometryDecoder, raw: Uint8Array, previous: Array<{ bytes: Buffer; decoded: DecodedGeometry } | undefined>, index: number): DecodedGeometry {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const last = previous[index];
  if (last && last.bytes.equals(bytes)) return last.decoded;
  const decoded = decoder.decode(raw);
  previous[index] = { bytes, decoded };
  return decoded;
}

function codeOf(error: unknown): string {
  if (error instanceof GeoError) return error.code;
  if (error instanceof WkbError) return GEO_CODES.invalidGeometry;
  return GEO_CODES.operationFailed;
}

function messageOf(error: unknown): string {
  if (error instanceof WkbError) return `the GEOMETRY value is not valid well-known binary: ${error.message}`;
  return (error as Error).message ?? String(error);
}
