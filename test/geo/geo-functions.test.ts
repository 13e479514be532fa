import test from 'ava';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { withRuntime } from '../helpers/runtime.js';

const GEO_ON = 'runtime:\n  params:\n    geo: enabled\n';

/** Runs SQL over HTTP and returns the JSON rows; fails the test with the body when the status is not 200. */
async function rows(sql: (text: string, init?: { accept?: string }) => Promise<Response>, text: string): Promise<Array<Record<string, unknown>>> {
  const response = await sql(text, { accept: 'application/json' });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${response.status} ${body}`);
  return JSON.parse(body) as Array<Record<string, unknown>>;
}

async function failure(sql: (text: string) => Promise<Response>, text: string): Promise<{ status: number; code: string; message: string }> {
  const response = await sql(text);
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

test('known answers: points, distance, area, length, perimeter, buffer', async (t) => {
  await withRuntime(t, { manifest: GEO_ON }, async ({ sql }) => {
    const [answer] = await rows(
      sql,
      `SELECT
        ST_X(ST_Point(1.5, -2)) AS x,
        ST_Y(ST_Point(1.5, -2)) AS y,
        ST_AsText(ST_Point(1.5, -2)) AS point_text,
        ST_Distance(ST_Point(0, 0), ST_Point(3, 4)) AS distance_3_4_5,
        ST_Distance(ST_GeomFromText('POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))'), ST_Point(4, 5)) AS distance_square_point,
        ST_Area(ST_GeomFromText('POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))')) AS unit_square_area,
        ST_Area(ST_GeomFromText('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))')) AS square_with_hole_area,
        ST_Length(ST_GeomFromText('LINESTRING (0 0, 3 4, 3 10)')) AS line_length,
        ST_Length(ST_GeomFromText('POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))')) AS polygon_length,
        ST_Perimeter(ST_GeomFromText('POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))')) AS unit_square_perimeter,
        ST_Area(ST_Buffer(ST_Point(0, 0), 2)) AS buffer_area,
        ST_Area(ST_Buffer(ST_Point(0, 0), 2, 64)) AS fine_buffer_area,
        ST_GeometryType(ST_Buffer(ST_Point(0, 0), 2)) AS buffer_type,
        ST_AsText(ST_GeomFromText('multipoint ((1 2), (3 4))')) AS multipoint_text,
        ST_X(ST_GeomFromText('POINT EMPTY')) AS empty_x`,
    );
    t.like(answer, {
      x: 1.5,
      y: -2,
      point_text: 'POINT (1.5 -2)',
      distance_3_4_5: 5,
      distance_square_point: 5,
      unit_square_area: 1,
      square_with_hole_area: 15,
      line_length: 11,
      polygon_length: 0,
      unit_square_perimeter: 4,
      buffer_type: 'POLYGON',
      multipoint_text: 'MULTIPOINT (1 2, 3 4)',
      empty_x: null,
    });
    // A buffer is a polygon of straight segments inside the circle: its area is a little under πr².
    const circle = Math.PI * 4;
    const coarse = answer!.buffer_area as number;
    const fine = answer!.fine_buffer_area as number;
    t.true(coarse < circle && coarse > circle * 0.99, `8 segments per quarter: ${coarse} within 1% of ${circle}`);
    t.true(fine < circle && fine > circle * 0.9995, `64 segments per quarter: ${fine} within 0.05% of ${circle}`);
  });
});

test('predicates: contains / within / intersects truth table', async (t) => {
  await withRuntime(t, { manifest: GEO_ON }, async ({ sql }) => {
    const square = `ST_GeomFromText('POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))')`;
    const cases = [
      // [other geometry WKT, square contains it, it is within the square, they intersect]
      ['POINT (1 1)', true, true, true],
      ['POINT (2 1)', false, false, true], // on the boundary: intersects, not contained (OGC semantics)
      ['POINT (3 3)', false, false, false],
      ['LINESTRING (0.5 0.5, 1.5 1.5)', true, true, true],
      ['LINESTRING (1 1, 3 3)', false, false, true],
      ['POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))', false, false, true],
      ['POLYGON ((5 5, 6 5, 6 6, 5 6, 5 5))', false, false, false],
      ['POLYGON ((0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5))', true, true, true],
    ] as const;
    const query = cases
      .map(([wkt], index) => `SELECT ${index} AS i, ST_Contains(${square}, ST_GeomFromText('${wkt}')) AS contains, ST_Within(ST_GeomFromText('${wkt}'), ${square}) AS within, ST_Intersects(${square}, ST_GeomFromText('${wkt}')) AS intersects, ST_Intersects(ST_GeomFromText('${wkt}'), ${square}) AS intersects_swapped`)
      .join(' UNION ALL ');
    const answers = await rows(sql, `${query} ORDER BY i`);
    t.deepEqual(
      answers,
      cases.map(([, contains, within, intersects], index) => ({ i: index, contains, within, intersects, intersects_swapped: intersects })),
    );
    // The reverse: a small point never contains the square.
    t.deepEqual(await rows(sql, `SELECT ST_Contains(ST_Point(1, 1), ${square}) AS c, ST_Within(${square}, ST_Point(1, 1)) AS w`), [{ c: false, w: false }]);
  });
});

test('over a table: a repeated polygon (the cached, prepared path) gives the same answers as fresh ones', async (t) => {
  await withRuntime(t, { manifest: GEO_ON }, async ({ sql }) => {
    // A 10x10 grid of points 0..9; the region is the polygon (2.5 2.5, 6.5 2.5, 6.5 6.5, 2.5 6.5): 4x4 = 16 points inside.
    const region = `'POLYGON ((2.5 2.5, 6.5 2.5, 6.5 6.5, 2.5 6.5, 2.5 2.5))'`;
    const [answer] = await rows(
      sql,
      `WITH grid AS (SELECT ST_Point(a, b) AS p FROM range(10) t(a), range(10) u(b))
       SELECT count(*) FILTER (WHERE ST_Contains(ST_GeomFromText(${region}), p)) AS inside,
              count(*) FILTER (WHERE ST_Within(p, ST_GeomFromText(${region}))) AS within,
              count(*) FILTER (WHERE ST_Intersects(p, ST_Buffer(ST_Point(0, 0), 1.5))) AS near_origin,
              count(*) FILTER (WHERE ST_Contains(ST_Buffer(p, 0.01), p)) AS each_in_own_buffer
       FROM grid`,
    );
    // Within 1.5 of the origin: (0,0) (1,0) (0,1) (1,1); the buffer is a 32-gon, still containing (1,1) at distance 1.414.
    t.deepEqual(answer, { inside: 16, within: 16, near_origin: 4, each_in_own_buffer: 100 });
    const [nulls] = await rows(sql, 'SELECT ST_X(NULL) AS x, ST_Distance(ST_Point(0, 0), NULL) AS d, ST_Point(NULL, 1) AS p');
    t.deepEqual(nulls, { x: null, d: null, p: null });
  });
});

test('bad input: invalid WKT, wrong geometry kind, bad segment count fail with stable codes', async (t) => {
  await withRuntime(t, { manifest: GEO_ON }, async ({ sql }) => {
    const invalid = await failure(sql, "SELECT ST_GeomFromText('POINT (1')");
    t.is(invalid.status, 400);
    t.is(invalid.code, 'GEO_INVALID_GEOMETRY');
    t.regex(invalid.message, /^ST_GeomFromText: "POINT \(1" is not well-known text \(.+\); expected e\.g\. POINT \(1 2\)/);
    const unknownType = await failure(sql, "SELECT ST_GeomFromText('CIRCLE (0 0, 1)')");
    t.is(unknownType.code, 'GEO_INVALID_GEOMETRY');
    t.regex(unknownType.message, /CIRCLE/);
    const notPoint = await failure(sql, "SELECT ST_X(ST_GeomFromText('LINESTRING (0 0, 1 1)'))");
    t.is(notPoint.code, 'GEO_INVALID_ARGUMENT');
    t.is(notPoint.message, 'ST_X: expected a POINT, got a LINESTRING');
    const segments = await failure(sql, 'SELECT ST_Buffer(ST_Point(0, 0), 1, 0)');
    t.is(segments.code, 'GEO_INVALID_ARGUMENT');
    t.regex(segments.message, /^ST_Buffer: segments per quarter circle must be a whole number from 1 to 1000, got 0/);
  });
});

test('GEOMETRY values round-trip: DuckDB literals in, WKB out over Flight tagged geoarrow.wkb', async (t) => {
  await withRuntime(t, { manifest: GEO_ON, flight: true }, async ({ runtime }) => {
    const client = FlightSqlClient.connect({ endpoint: `grpc://${runtime.flightEndpoint}` });
    try {
      const { table } = await client.query(
        "SELECT ST_Distance('POINT (0 0)'::GEOMETRY, 'POINT (6 8)'::GEOMETRY) AS d, ST_Contains('POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))'::GEOMETRY, ST_Point(0.5, 0.5)) AS c, ST_Point(1, 2) AS p, ST_Area(ST_Buffer(ST_Point(0, 0), 1, 1)) AS diamond_area",
      );
      const [row] = table.toArray().map((entry) => entry.toJSON() as Record<string, unknown>);
      t.is(row!.d, 10);
      t.is(row!.c, true);
      // One segment per quarter circle: the buffer of radius 1 is the diamond |x| + |y| <= 1, of area 2.
      t.true(Math.abs((row!.diamond_area as number) - 2) < 1e-12, `diamond area ${String(row!.diamond_area)}`);
      // ISO WKB, little-endian: 01, type 1, x = 1.0, y = 2.0.
      const wkb = Buffer.alloc(21);
      wkb.writeUInt8(1, 0);
      wkb.writeUInt32LE(1, 1);
      wkb.writeDoubleLE(1, 5);
      wkb.writeDoubleLE(2, 13);
      t.deepEqual(Buffer.from(row!.p as Uint8Array), wkb);
      t.is(table.schema.fields.find((field) => field.name === 'p')?.metadata.get('ARROW:extension:name'), 'geoarrow.wkb');
    } finally {
      client.close();
    }
  });
});

test('geo off: without runtime.params.geo, or without the plugin, no ST_* function of the plugin exists', async (t) => {
  for (const setup of [
    { manifest: 'runtime:\n  params:\n    geo: disabled\n' },
    { manifest: 'version: v2\n' },
    { manifest: GEO_ON, bundle: defaultPlugins().filter((plugin) => plugin.name !== 'geo') },
  ]) {
    await withRuntime(t, setup, async ({ sql, logs }) => {
      const missing = await failure(sql, 'SELECT ST_Point(1, 2)');
      t.is(missing.code, 'SQL_INVALID');
      t.regex(missing.message, /st_point/i);
      if (setup.bundle) t.true(logs.some((record) => /geo plugin \(the spatial ST_\* functions\) is not part of this deployment/.test(record.message)), 'the manifest warning names the missing plugin');
    });
  }
});

test('WKB codec agrees with DuckDB both ways, for every geometry kind, with Z', async (t) => {
  await withRuntime(t, { manifest: GEO_ON }, async ({ sql }) => {
    const shapes = [
      'POINT (1 2)',
      'POINT Z (1 2 3)',
      'LINESTRING (0 0, 1 1, 2 0)',
      'POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))',
      'MULTIPOINT ((1 2), (3 4))',
      'MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))',
      'MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))',
      'GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1))',
      'LINESTRING EMPTY',
      'POLYGON EMPTY',
    ];
    const query = shapes
      .map((wkt, index) => `SELECT ${index} AS i, ST_AsText(ST_GeomFromText('${wkt}')) AS ours, ST_AsText('${wkt}'::GEOMETRY) AS duckdb, ST_GeometryType('${wkt}'::GEOMETRY) AS kind`)
      .join(' UNION ALL ');
    const answers = await rows(sql, `${query} ORDER BY i`);
    for (const answer of answers) t.is(answer.ours, answer.duckdb, `our WKB for ${shapes[answer.i as number]} reads back in DuckDB the same`);
    t.deepEqual(
      answers.map((answer) => answer.kind),
      ['POINT', 'POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION', 'LINESTRING', 'POLYGON'],
      'DuckDB-written WKB reads back in our codec',
    );
  });
});
