import type Coordinate from 'jsts/org/locationtech/jts/geom/Coordinate.js';

/**
 * The part of a JTS Geometry this plugin uses. jsts's bundled typings leave most Geometry
 * methods out (they are declared on subclasses only, some not at all), so values from jsts
 * are viewed through this interface (a structural cast).
 */
export interface Shape {
  getGeometryType(): string;
  isEmpty(): boolean;
  getCoordinate(): Coordinate | null;
  getCoordinates(): Coordinate[];
  getNumGeometries(): number;
  getGeometryN(index: number): Shape;
  getArea(): number;
  getLength(): number;
}
