import Coordinate from 'jsts/org/locationtech/jts/geom/Coordinate.js';
import type { Shape } from './shape.js';
import type GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';

/**
 * Well-known binary ↔ JTS geometries. DuckDB's GEOMETRY values are WKB (little-endian,
 * ISO type codes: 1001 = POINT Z), and jsts ships no WKB reader or writer, so this small
 * codec sits between them. It reads both byte orders, ISO (1000/2000/3000 offsets) and EWKB
 * (high flag bits, optional SRID) type codes; M values are read and dropped (JTS's
 * operations ignore them). It writes little-endian ISO WKB, with Z when any coordinate has one.
 */

const WKB_TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'] as const;

const EWKB_Z = 0x80000000;
const EWKB_M = 0x40000000;
const EWKB_SRID = 0x20000000;

/** Thrown for bytes that are not WKB; the caller turns it into a query error with its code. */
export class WkbError extends Error {}

class WkbReader {
  #offset = 0;
  readonly #view: DataView;

  constructor(
    bytes: Uint8Array,
    private readonly factory: GeometryFactory,
  ) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.#offset === this.#view.byteLength;
  }

  #need(size: number): void {
    if (this.#offset + size > this.#view.byteLength) throw new WkbError(`WKB ends early at byte ${this.#offset} (${this.#view.byteLength} bytes)`);
  }

  #uint32(littleEndian: boolean): number {
    this.#need(4);
    const value = this.#view.getUint32(this.#offset, littleEndian);
    this.#offset += 4;
    return value;
  }

  #double(littleEndian: boolean): number {
    this.#need(8);
    const value = this.#view.getFloat64(this.#offset, littleEndian);
    this.#offset += 8;
    return value;
  }

  #coordinates(count: number, littleEndian: boolean, hasZ: boolean, hasM: boolean): Coordinate[] {
    // Each coordinate takes at least 16 bytes: a count larger than the bytes left is corrupt, not a huge allocation.
    this.#need(count * 8 * (2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0)));
    const coordinates = new Array<Coordinate>(count);
    for (let index = 0; index < count; index++) {
      const x = this.#double(littleEndian);
      const y = this.#double(littleEndian);
      const z = hasZ ? this.#double(littleEndian) : Number.NaN;
      if (hasM) this.#double(littleEndian);
      coordinates[index] = new Coordinate(x, y, z);
    }
    return coordinates;
  }

  geometry(depth = 0): Shape {
    if (depth > 32) throw new WkbError('WKB nests collections more than 32 deep');
    this.#need(1);
    const order = this.#view.getUint8(this.#offset++);
    if (order !== 0 && order !== 1) throw new WkbError(`byte ${this.#offset - 1} is ${order}, expected a byte order of 0 or 1`);
    const littleEndian = order === 1;
    const code = this.#uint32(littleEndian);
    let hasZ = (code & EWKB_Z) !== 0;
    let hasM = (code & EWKB_M) !== 0;
    if ((code & EWKB_SRID) !== 0) this.#uint32(littleEndian); // the SRID: GEOMETRY values carry no CRS here
    let base = code & 0x0fffffff;
    const dimensions = Math.floor(base / 1000);
    base %= 1000;
    if (dimensions === 1 || dimensions === 3) hasZ = true;
    if (dimensions === 2 || dimensions === 3) hasM = true;
    const kind = WKB_TYPES[base];
    if (!kind || dimensions > 3) throw new WkbError(`geometry type code ${code} is not a WKB type (1 to 7, with Z/M variants)`);
    const count = () => this.#uint32(littleEndian);
    const factory = this.factory;
    switch (kind) {
      case 'Point': {
        const [coordinate] = this.#coordinates(1, littleEndian, hasZ, hasM);
        // WKB has no empty point: writers (DuckDB too) write NaN coordinates.
        return Number.isNaN(coordinate!.x) && Number.isNaN(coordinate!.y) ? factory.createPoint() : factory.createPoint(coordinate);
      }
      case 'LineString':
        return factory.createLineString(this.#coordinates(count(), littleEndian, hasZ, hasM));
      case 'Polygon': {
        const rings = Array.from({ length: count() }, () => factory.createLinearRing(this.#coordinates(count(), littleEndian, hasZ, hasM)));
        if (rings.length === 0) return factory.createPolygon();
        return factory.createPolygon(rings[0], rings.slice(1));
      }
      case 'MultiPoint':
        return factory.createMultiPoint(this.#parts(count(), depth, 'Point'));
      case 'MultiLineString':
        return factory.createMultiLineString(this.#parts(count(), depth, 'LineString'));
      case 'MultiPolygon':
        return factory.createMultiPolygon(this.#parts(count(), depth, 'Polygon'));
      case 'GeometryCollection':
        return factory.createGeometryCollection(this.#parts(count(), depth, undefined));
    }
  }

  #parts(count: number, depth: number, expected: string | undefined): Shape[] {
    // Every part takes at least 9 bytes (order, type, one count or coordinate).
    this.#need(count * 9);
    return Array.from({ length: count }, () => {
      const part = this.geometry(depth + 1);
      if (expected && part.getGeometryType() !== expected) throw new WkbError(`a Multi${expected} holds a ${part.getGeometryType()}`);
      return part;
    });
  }
}

/** Parses WKB into a JTS geometry; throws WkbError on malformed bytes. */
export function readWkb(bytes: Uint8Array, factory: GeometryFactory): Shape {
  const reader = new WkbReader(bytes, factory);
  const geometry = reader.geometry();
  if (!reader.done) throw new WkbError(`WKB has ${bytes.byteLength} bytes, more than the geometry it holds`);
  return geometry;
}

/** Grows as it writes: most geometries are small, buffers of circles are a few KiB. */
class ByteWriter {
  #bytes = new Uint8Array(64);
  #view = new DataView(this.#bytes.buffer);
  #length = 0;

  #reserve(size: number): void {
    if (this.#length + size <= this.#bytes.byteLength) return;
    const grown = new Uint8Array(Math.max(this.#bytes.byteLength * 2, this.#length + size));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
    this.#view = new DataView(grown.buffer);
  }

  header(type: number, hasZ: boolean): void {
    this.#reserve(5);
    this.#view.setUint8(this.#length, 1);
    this.#view.setUint32(this.#length + 1, type + (hasZ ? 1000 : 0), true);
    this.#length += 5;
  }

  uint32(value: number): void {
    this.#reserve(4);
    this.#view.setUint32(this.#length, value, true);
    this.#length += 4;
  }

  coordinates(coordinates: readonly Coordinate[], hasZ: boolean): void {
    this.#reserve(coordinates.length * (hasZ ? 24 : 16));
    for (const coordinate of coordinates) {
      this.#view.setFloat64(this.#length, coordinate.x, true);
      this.#view.setFloat64(this.#length + 8, coordinate.y, true);
      if (hasZ) this.#view.setFloat64(this.#length + 16, Number.isNaN(coordinate.z) ? 0 : coordinate.z, true);
      this.#length += hasZ ? 24 : 16;
    }
  }

  result(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

function hasZValues(geometry: Shape): boolean {
  return (geometry.getCoordinates() as Coordinate[]).some((coordinate) => !Number.isNaN(coordinate.z));
}

function writeGeometry(writer: ByteWriter, geometry: Shape, hasZ: boolean): void {
  const kind = geometry.getGeometryType();
  switch (kind) {
    case 'Point': {
      writer.header(1, hasZ);
      const empty = geometry.isEmpty();
      writer.coordinates([empty ? new Coordinate(Number.NaN, Number.NaN, Number.NaN) : (geometry.getCoordinate() as Coordinate)], hasZ);
      return;
    }
    case 'LineString':
    case 'LinearRing': {
      writer.header(2, hasZ);
      const coordinates = geometry.getCoordinates() as Coordinate[];
      writer.uint32(coordinates.length);
      writer.coordinates(coordinates, hasZ);
      return;
    }
    case 'Polygon': {
      writer.header(3, hasZ);
      if (geometry.isEmpty()) {
        writer.uint32(0);
        return;
      }
      const polygon = geometry as unknown as { getExteriorRing(): Shape; getNumInteriorRing(): number; getInteriorRingN(index: number): Shape };
      const rings = [polygon.getExteriorRing(), ...Array.from({ length: polygon.getNumInteriorRing() }, (_, index) => polygon.getInteriorRingN(index))];
      writer.uint32(rings.length);
      for (const ring of rings) {
        const coordinates = ring.getCoordinates() as Coordinate[];
        writer.uint32(coordinates.length);
        writer.coordinates(coordinates, hasZ);
      }
      return;
    }
    default: {
      const type = WKB_TYPES.indexOf(kind as (typeof WKB_TYPES)[number]);
      if (type < 4) throw new WkbError(`cannot write a ${kind} as WKB`);
      writer.header(type, hasZ);
      writer.uint32(geometry.getNumGeometries());
      for (let index = 0; index < geometry.getNumGeometries(); index++) writeGeometry(writer, geometry.getGeometryN(index), hasZ);
    }
  }
}

/** Writes a JTS geometry as little-endian ISO WKB (what DuckDB's GEOMETRY holds). */
export function writeWkb(geometry: Shape): Uint8Array {
  const writer = new ByteWriter();
  writeGeometry(writer, geometry, hasZValues(geometry));
  return writer.result();
}
