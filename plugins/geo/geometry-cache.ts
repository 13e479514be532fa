import type { Shape } from './shape.js';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import Coordinate from 'jsts/org/locationtech/jts/geom/Coordinate.js';
import IndexedPointInAreaLocator from 'jsts/org/locationtech/jts/algorithm/locate/IndexedPointInAreaLocator.js';
import { readWkb } from './wkb.js';

/** Where a point lies against an area: INTERIOR, BOUNDARY or EXTERIOR (jsts's Location values). */
export interface PointLocator {
  locate(coordinate: unknown): number;
}

/** A geometry read from a GEOMETRY value; repeated polygons also carry an index for point tests. */
export interface DecodedGeometry {
  readonly geometry: Shape;
  /**
   * For a polygon seen again: an interval index over its edges that places a point in
   * O(log n) instead of walking every edge; undefined otherwise. (jsts's PreparedGeometry
   * would be the general tool, but its ES-module build cannot construct one.)
   */
  pointLocator(): PointLocator | undefined;
  /** Set for a non-empty 2D point: its coordinate, read straight from the bytes (no JTS object needed). */
  readonly point: Coordinate | undefined;
}

/** A 2D little-endian WKB point (what ST_Point and DuckDB write): 1 byte order, type 1, x, y. */
function isSimplePoint(bytes: Uint8Array): boolean {
  return bytes.byteLength === 21 && bytes[0] === 1 && bytes[1] === 1 && bytes[2] === 0 && bytes[3] === 0 && bytes[4] === 0;
}

/**
 * Points are most rows of most spatial queries: their coordinate is read directly and the
 * JTS geometry made only if a function needs it (distance, buffer), not for ST_X or a
 * point-in-polygon test.
 */
function simplePoint(bytes: Uint8Array, factory: GeometryFactory): DecodedGeometry | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const x = view.getFloat64(5, true);
  const y = view.getFloat64(13, true);
  if (Number.isNaN(x) && Number.isNaN(y)) return undefined; // POINT EMPTY: the general path
  const coordinate = new Coordinate(x, y);
  let geometry: Shape | undefined;
  return {
    get geometry() {
      return (geometry ??= factory.createPoint(coordinate) as Shape);
    },
    pointLocator: NO_LOCATOR,
    point: coordinate,
  };
}

/** Values smaller than this (a point is 21 bytes) are cheaper to parse than to look up. */
const CACHE_MIN_BYTES = 64;
const CACHE_MAX_ENTRIES = 1024;
const CACHE_MAX_BYTES = 16 * 1024 * 1024;

interface CacheEntry extends DecodedGeometry {
  readonly size: number;
}

const NO_LOCATOR = () => undefined;

/**
 * Reads GEOMETRY values (WKB) into JTS geometries. A query like
 * `ST_Contains(region.shape, point)` passes the same polygon on every row: parsing it (and
 * building its predicate index) once, keyed by its bytes, makes the per-row cost that of the
 * point. Least-recently-used entries leave when the count or byte bound is reached.
 */
export class GeometryDecoder {
  readonly factory = new GeometryFactory();
  readonly #cache = new Map<string, CacheEntry>();
  #cachedBytes = 0;

  decode(bytes: Uint8Array): DecodedGeometry {
    const point = isSimplePoint(bytes) ? simplePoint(bytes, this.factory) : undefined;
    if (point) return point;
    if (bytes.byteLength < CACHE_MIN_BYTES || bytes.byteLength > CACHE_MAX_BYTES / 4) {
      return { geometry: readWkb(bytes, this.factory), pointLocator: NO_LOCATOR, point: undefined };
    }
    // latin1 maps each byte to one UTF-16 unit: an exact key, made at memcpy speed.
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    const hit = this.#cache.get(key);
    if (hit) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return hit;
    }
    const geometry = readWkb(bytes, this.factory);
    const areal = /Polygon$/.test(geometry.getGeometryType()) && !geometry.isEmpty();
    let locator: PointLocator | undefined;
    let asked = 0;
    // Built on the second use: the index costs more than it saves for a polygon tested once.
    const entry: CacheEntry = {
      geometry,
      size: bytes.byteLength,
      point: undefined,
      pointLocator: areal ? () => (++asked < 2 ? undefined : (locator ??= new IndexedPointInAreaLocator(geometry))) : NO_LOCATOR,
    };
    this.#cache.set(key, entry);
    this.#cachedBytes += entry.size;
    this.#evict();
    return entry;
  }

  #evict(): void {
    for (const [key, entry] of this.#cache) {
      if (this.#cache.size <= CACHE_MAX_ENTRIES && this.#cachedBytes <= CACHE_MAX_BYTES) return;
      this.#cache.delete(key);
      this.#cachedBytes -= entry.size;
    }
  }
}
