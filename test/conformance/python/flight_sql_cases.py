"""Flight SQL conformance cases, driven with pyarrow.flight (Arrow C++ Flight) only.

Nothing of Quarry's own client code is used: commands are the Flight SQL protobuf messages
compiled from proto/arrow/flight/protocol/sql/flight_sql.proto (whose messages, field numbers
and types are those of Arrow's published FlightSql.proto), packed in google.protobuf.Any as
every Flight SQL client packs them.

Usage: flight_sql_cases.py --generated DIR --endpoint grpc://HOST:PORT --metrics URL
       --rw-key KEY --ro-key KEY [CASE ...]
Prints one JSON line per case: {"case": NAME, "ok": true} or {"case": NAME, "ok": false,
"error": TEXT}. Exit status 0 even when cases fail: the caller reports each case.
"""

import argparse
import datetime
import decimal
import sys
import time
import urllib.request

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.flight as flight
from case_runner import run_cases

ARGS = None
sql = None  # the generated flight_sql_pb2 module
flight_messages = None  # the generated flight_pb2 module (CancelFlightInfoRequest: pyarrow 25 has no binding for it)


def packed(message):
    from google.protobuf import any_pb2

    holder = any_pb2.Any()
    holder.Pack(message)
    return holder.SerializeToString()


def unpacked(data, message_type):
    from google.protobuf import any_pb2

    holder = any_pb2.Any()
    holder.ParseFromString(data)
    message = message_type()
    assert holder.Unpack(message), f"expected an Any holding {message_type.DESCRIPTOR.full_name}, got {holder.type_url}"
    return message


def client():
    return flight.FlightClient(ARGS.endpoint)


def options(key=None):
    """Call options carrying the bearer token a Basic handshake returns for `key`."""
    connection = client()
    header = connection.authenticate_basic_token("", key or ARGS.rw_key)
    connection.close()
    return flight.FlightCallOptions(headers=[header])


def descriptor(message):
    return flight.FlightDescriptor.for_command(packed(message))


def read_info(info, call_options, connection=None):
    """Every endpoint of a FlightInfo read to its end (on `connection`, by default a new one)."""
    connection = connection or client()
    tables = [connection.do_get(endpoint.ticket, call_options).read_all() for endpoint in info.endpoints]
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def query(text, call_options=None):
    call_options = call_options or options()
    info = client().get_flight_info(descriptor(sql.CommandStatementQuery(query=text)), call_options)
    return read_info(info, call_options)


def put_for_count(command, schema, batches, call_options, connection=None):
    """DoPut of `batches` with a command answered by DoPutUpdateResult; returns its record_count."""
    writer, reader = (connection or client()).do_put(descriptor(command), schema, call_options)
    for batch in batches:
        writer.write_batch(batch)
    writer.done_writing()
    metadata = reader.read()
    writer.close()
    result = sql.DoPutUpdateResult()
    result.ParseFromString(metadata.to_pybytes())
    return result.record_count


def create_prepared(connection, text, call_options):
    """The CreatePreparedStatement action: its ActionCreatePreparedStatementResult."""
    request = sql.ActionCreatePreparedStatementRequest(query=text)
    results = list(connection.do_action(flight.Action("CreatePreparedStatement", packed(request)), call_options))
    return unpacked(results[0].body.to_pybytes(), sql.ActionCreatePreparedStatementResult)


def update(text, call_options=None):
    """CommandStatementUpdate through DoPut, as Arrow C++ FlightSqlClient::ExecuteUpdate sends it."""
    return put_for_count(sql.CommandStatementUpdate(query=text), pa.schema([]), [], call_options or options())


def events_count(call_options):
    return query("SELECT count(*) AS n FROM events", call_options).column("n")[0].as_py()


def expect_failure(action, *patterns, kind=pa.ArrowException):
    '''The call fails with an exception of `kind` whose text holds every pattern.'''
    try:
        action()
    except pa.ArrowException as error:
        assert isinstance(error, kind), f"expected {kind.__name__}, got {type(error).__name__}: {error}"
        text = str(error)
        for pattern in patterns:
            assert pattern in text, f"expected {pattern!r} in the error, got {text!r}"
        return error
    raise AssertionError(f"expected a Flight error with {patterns}, the call succeeded")


# ---------------------------------------------------------------------------- the cases


def case_query_ticket_on_another_connection():
    call_options = options()
    info = client().get_flight_info(descriptor(sql.CommandStatementQuery(query="SELECT i, i * 2 AS twice FROM range(5) t(i) ORDER BY i")), call_options)
    assert info.schema.names == ["i", "twice"], info.schema
    assert len(info.endpoints) >= 1
    table = read_info(info, call_options, connection=client())
    assert table.column("twice").to_pylist() == [0, 2, 4, 6, 8]
    # The same ticket, redeemed again on yet another connection, gives the same rows.
    again = read_info(info, call_options, connection=client())
    assert again.equals(table)


def case_prepared_statement_with_bound_parameters():
    call_options = options()
    connection = client()
    created = create_prepared(connection, "SELECT $1::BIGINT + 1 AS next, upper($2) AS shout, $3::DOUBLE * 2 AS doubled, NOT $4::BOOLEAN AS negated, $5::DATE + 1 AS tomorrow, $6::TIMESTAMP AS at", call_options)
    parameter_schema = pa.ipc.read_schema(pa.py_buffer(created.parameter_schema))
    assert len(parameter_schema) == 6, parameter_schema
    dataset_schema = pa.ipc.read_schema(pa.py_buffer(created.dataset_schema))
    assert dataset_schema.names == ["next", "shout", "doubled", "negated", "tomorrow", "at"], dataset_schema
    parameters = pa.table({
        "a": pa.array([41], pa.int64()),
        "b": pa.array(["quiet"], pa.utf8()),
        "c": pa.array([1.25], pa.float64()),
        "d": pa.array([True], pa.bool_()),
        "e": pa.array([datetime.date(2026, 2, 28)], pa.date32()),
        "f": pa.array([datetime.datetime(2026, 11, 27, 5, 6, 7, 123456)], pa.timestamp("us")),
    })
    command = sql.CommandPreparedStatementQuery(prepared_statement_handle=created.prepared_statement_handle)
    writer, reader = connection.do_put(descriptor(command), parameters.schema, call_options)
    writer.write_table(parameters)
    writer.done_writing()
    answer = reader.read()
    writer.close()
    if answer is not None and answer.size > 0:
        bound = sql.DoPutPreparedStatementResult()
        bound.ParseFromString(answer.to_pybytes())
        if bound.HasField("prepared_statement_handle"):
            command = sql.CommandPreparedStatementQuery(prepared_statement_handle=bound.prepared_statement_handle)
    info = connection.get_flight_info(descriptor(command), call_options)
    row = read_info(info, call_options).to_pylist()
    assert row == [{"next": 42, "shout": "QUIET", "doubled": 2.5, "negated": False, "tomorrow": datetime.date(2026, 3, 1), "at": datetime.datetime(2026, 11, 27, 5, 6, 7, 123456)}], row
    close = sql.ActionClosePreparedStatementRequest(prepared_statement_handle=command.prepared_statement_handle)
    list(connection.do_action(flight.Action("ClosePreparedStatement", packed(close)), call_options))


def case_prepared_update_with_several_parameter_rows():
    call_options = options()
    connection = client()
    before = events_count(call_options)
    created = create_prepared(connection, "INSERT INTO events VALUES ($1, $2)", call_options)
    rows = pa.table({"id": pa.array([1001, 1002, 1003], pa.int64()), "label": pa.array(["a", "b", "c"], pa.utf8())})
    command = sql.CommandPreparedStatementUpdate(prepared_statement_handle=created.prepared_statement_handle)
    count = put_for_count(command, rows.schema, rows.to_batches(), call_options, connection)
    assert count == 3, count
    assert events_count(call_options) == before + 3
    labels = query("SELECT label FROM events WHERE id BETWEEN 1001 AND 1003 ORDER BY id", call_options).column("label").to_pylist()
    assert labels == ["a", "b", "c"], labels


def case_statement_update():
    call_options = options()
    before = events_count(call_options)
    assert update("INSERT INTO events VALUES (2001, 'from an update')", call_options) == 1
    assert events_count(call_options) == before + 1
    # A read-only key may not write: PERMISSION_DENIED (FlightUnauthorizedError in pyarrow).
    expect_failure(lambda: update("INSERT INTO events VALUES (2002, 'refused')", options(ARGS.ro_key)), "may only read", kind=flight.FlightUnauthorizedError)


def case_statement_ingest():
    call_options = options()
    before = events_count(call_options)
    rows = pa.table({"id": pa.array(range(3000, 3000 + 5000), pa.int64()), "label": pa.array([f"ingested {i}" for i in range(5000)], pa.utf8())})
    options_message = sql.CommandStatementIngest.TableDefinitionOptions(
        if_not_exist=sql.CommandStatementIngest.TableDefinitionOptions.TABLE_NOT_EXIST_OPTION_FAIL,
        if_exists=sql.CommandStatementIngest.TableDefinitionOptions.TABLE_EXISTS_OPTION_APPEND,
    )
    command = sql.CommandStatementIngest(table="events", table_definition_options=options_message)
    # Several batches of odd sizes: their bodies land at any offset of gRPC's buffers.
    count = put_for_count(command, rows.schema, rows.to_batches(max_chunksize=777), call_options)
    assert count == 5000, count
    assert events_count(call_options) == before + 5000
    check = query("SELECT sum(id) AS s, max(label) AS m FROM events WHERE id >= 3000 AND id < 8000", call_options).to_pylist()[0]
    assert check == {"s": sum(range(3000, 8000)), "m": "ingested 999"}, check


def case_plain_doput_path():
    call_options = options()
    before = events_count(call_options)
    rows = pa.table({"id": pa.array([9001, 9002], pa.int64()), "label": pa.array(["path one", None], pa.utf8())})
    writer, reader = client().do_put(flight.FlightDescriptor.for_path("events"), rows.schema, call_options)
    writer.write_table(rows)
    writer.close()
    assert events_count(call_options) == before + 2
    assert query("SELECT label FROM events WHERE id >= 9001 ORDER BY id", call_options).column("label").to_pylist() == ["path one", None]


def nullable(name, arrow_type, is_nullable=True):
    return pa.field(name, arrow_type, nullable=is_nullable)


KEY_REFERENCE_SCHEMA = pa.schema([
    nullable("pk_catalog_name", pa.utf8()), nullable("pk_db_schema_name", pa.utf8()),
    nullable("pk_table_name", pa.utf8(), False), nullable("pk_column_name", pa.utf8(), False),
    nullable("fk_catalog_name", pa.utf8()), nullable("fk_db_schema_name", pa.utf8()),
    nullable("fk_table_name", pa.utf8(), False), nullable("fk_column_name", pa.utf8(), False),
    nullable("key_sequence", pa.int32(), False), nullable("fk_key_name", pa.utf8()), nullable("pk_key_name", pa.utf8()),
    nullable("update_rule", pa.uint8(), False), nullable("delete_rule", pa.uint8(), False),
])

# The result schemas FlightSql.proto declares for each metadata command (names, types, nullability).
METADATA_SCHEMAS = {
    "CommandGetCatalogs": pa.schema([nullable("catalog_name", pa.utf8(), False)]),
    "CommandGetDbSchemas": pa.schema([nullable("catalog_name", pa.utf8()), nullable("db_schema_name", pa.utf8(), False)]),
    "CommandGetTables": pa.schema([nullable("catalog_name", pa.utf8()), nullable("db_schema_name", pa.utf8()), nullable("table_name", pa.utf8(), False), nullable("table_type", pa.utf8(), False)]),
    "CommandGetTableTypes": pa.schema([nullable("table_type", pa.utf8(), False)]),
    "CommandGetPrimaryKeys": pa.schema([nullable("catalog_name", pa.utf8()), nullable("db_schema_name", pa.utf8()), nullable("table_name", pa.utf8(), False), nullable("column_name", pa.utf8(), False), nullable("key_name", pa.utf8()), nullable("key_sequence", pa.int32(), False)]),
    "CommandGetExportedKeys": KEY_REFERENCE_SCHEMA,
    "CommandGetImportedKeys": KEY_REFERENCE_SCHEMA,
    "CommandGetCrossReference": KEY_REFERENCE_SCHEMA,
    "CommandGetXdbcTypeInfo": pa.schema([
        nullable("type_name", pa.utf8(), False), nullable("data_type", pa.int32(), False), nullable("column_size", pa.int32()),
        nullable("literal_prefix", pa.utf8()), nullable("literal_suffix", pa.utf8()),
        nullable("create_params", pa.list_(pa.field("item", pa.utf8(), nullable=False))),
        nullable("nullable", pa.int32(), False), nullable("case_sensitive", pa.bool_(), False), nullable("searchable", pa.int32(), False),
        nullable("unsigned_attribute", pa.bool_()), nullable("fixed_prec_scale", pa.bool_(), False), nullable("auto_increment", pa.bool_()),
        nullable("local_type_name", pa.utf8()), nullable("minimum_scale", pa.int32()), nullable("maximum_scale", pa.int32()),
        nullable("sql_data_type", pa.int32(), False), nullable("datetime_subcode", pa.int32()), nullable("num_prec_radix", pa.int32()),
        nullable("interval_precision", pa.int32()),
    ]),
}


def same_shape(actual, expected):
    """Field names, types and nullability; list item names are a writer's choice, so only their type and nullability count."""
    assert actual.names == expected.names, f"{actual.names} != {expected.names}"
    for got, want in zip(actual, expected):
        assert got.nullable == want.nullable, f"{got.name}: nullable {got.nullable}, the spec says {want.nullable}"
        if pa.types.is_list(want.type):
            assert pa.types.is_list(got.type), f"{got.name}: {got.type}"
            assert got.type.value_type == want.type.value_type and got.type.value_field.nullable == want.type.value_field.nullable, f"{got.name}: {got.type}"
        else:
            assert got.type == want.type, f"{got.name}: {got.type}, the spec says {want.type}"


def metadata(command, call_options):
    info = client().get_flight_info(descriptor(command), call_options)
    table = read_info(info, call_options)
    return info, table


def case_metadata_commands_match_the_declared_schemas():
    call_options = options()
    commands = {
        "CommandGetCatalogs": sql.CommandGetCatalogs(),
        "CommandGetDbSchemas": sql.CommandGetDbSchemas(),
        "CommandGetTables": sql.CommandGetTables(),
        "CommandGetTableTypes": sql.CommandGetTableTypes(),
        "CommandGetPrimaryKeys": sql.CommandGetPrimaryKeys(table="events"),
        "CommandGetExportedKeys": sql.CommandGetExportedKeys(table="events"),
        "CommandGetImportedKeys": sql.CommandGetImportedKeys(table="events"),
        "CommandGetCrossReference": sql.CommandGetCrossReference(pk_table="events", fk_table="events"),
        "CommandGetXdbcTypeInfo": sql.CommandGetXdbcTypeInfo(),
    }
    for name, command in commands.items():
        info, table = metadata(command, call_options)
        same_shape(info.schema, METADATA_SCHEMAS[name])
        same_shape(table.schema, METADATA_SCHEMAS[name])
        # GetSchema answers the same schema without running anything.
        same_shape(client().get_schema(descriptor(command), call_options).schema, METADATA_SCHEMAS[name])
    _, catalogs = metadata(sql.CommandGetCatalogs(), call_options)
    # DuckDB's default catalog first, then Spice's names beside it (the spice-catalog plugin).
    assert catalogs.column("catalog_name").to_pylist() == ["memory", "spice"], catalogs
    _, tables = metadata(sql.CommandGetTables(), call_options)
    assert "events" in tables.column("table_name").to_pylist(), tables
    listed = set(zip(tables.column("catalog_name").to_pylist(), tables.column("db_schema_name").to_pylist(), tables.column("table_name").to_pylist()))
    assert {("memory", "main", "events"), ("spice", "public", "events"), ("memory", "runtime", "task_history")} <= listed, listed
    assert not any(name.endswith("_rows") or catalog.startswith("quarry_") for catalog, _, name in listed), listed
    _, with_schema = metadata(sql.CommandGetTables(table_name_filter_pattern="eve%", include_schema=True), call_options)
    assert with_schema.schema.names[-1] == "table_schema" and with_schema.schema.field("table_schema").type == pa.binary()
    assert not with_schema.schema.field("table_schema").nullable
    event_schema = pa.ipc.read_schema(pa.py_buffer(with_schema.column("table_schema")[0].as_py()))
    assert event_schema.names == ["id", "label"] and event_schema.field("id").type == pa.int64(), event_schema
    _, types = metadata(sql.CommandGetXdbcTypeInfo(), call_options)
    assert "VARCHAR" in types.column("type_name").to_pylist()


def case_get_sql_info():
    call_options = options()
    info, table = metadata(sql.CommandGetSqlInfo(info=[sql.FLIGHT_SQL_SERVER_NAME, sql.FLIGHT_SQL_SERVER_READ_ONLY, sql.SQL_IDENTIFIER_QUOTE_CHAR, sql.SQL_KEYWORDS]), call_options)
    value_type = table.schema.field("value").type
    assert table.schema.field("info_name").type == pa.uint32() and not table.schema.field("info_name").nullable
    assert isinstance(value_type, pa.UnionType) and value_type.mode == "dense", value_type
    assert [field.name for field in value_type] == ["string_value", "bool_value", "bigint_value", "int32_bitmask", "string_list", "int32_to_int32_list_map"], value_type
    values = {row["info_name"]: row["value"] for row in table.to_pylist()}
    assert values[sql.FLIGHT_SQL_SERVER_NAME] == "Quarry", values
    assert values[sql.FLIGHT_SQL_SERVER_READ_ONLY] is False, "a dataset with access: read_write makes the server writable"
    assert values[sql.SQL_IDENTIFIER_QUOTE_CHAR] == '"'
    assert "SELECT" in [keyword.upper() for keyword in values[sql.SQL_KEYWORDS]]


def case_basic_handshake_gives_a_bearer_token():
    connection = client()
    name, value = connection.authenticate_basic_token("ignored-user", ARGS.ro_key)
    assert name.lower() == b"authorization" and value.startswith(b"Bearer "), (name, value)
    rows = query("SELECT 7 AS seven", flight.FlightCallOptions(headers=[(name, value)])).to_pylist()
    assert rows == [{"seven": 7}]
    expect_failure(lambda: client().authenticate_basic_token("", "not-a-key"), "not accepted", kind=flight.FlightUnauthenticatedError)
    expect_failure(lambda: query("SELECT 1", flight.FlightCallOptions()), kind=flight.FlightUnauthenticatedError)


def case_spice_sdk_sql_text_descriptor():
    """spicepy's Client.query: the SQL text itself as the descriptor's command, an API key as a bearer token."""
    call_options = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {ARGS.ro_key}".encode())])
    connection = client()
    info = connection.get_flight_info(flight.FlightDescriptor.for_command("SELECT i, 'row ' || i AS label FROM range(3) t(i) ORDER BY i"), call_options)
    assert info.schema.names == ["i", "label"], info.schema
    table = connection.do_get(info.endpoints[0].ticket, call_options).read_all()
    assert table.to_pylist() == [{"i": 0, "label": "row 0"}, {"i": 1, "label": "row 1"}, {"i": 2, "label": "row 2"}], table.to_pylist()
    schema = connection.get_schema(flight.FlightDescriptor.for_command(b"SELECT 1.5::DOUBLE AS x"), call_options).schema
    assert schema.field("x").type == pa.float64(), schema
    # The same doors and rules as any query: a read-only key cannot write this way either.
    def drop():
        dropping = connection.get_flight_info(flight.FlightDescriptor.for_command("DROP TABLE events"), call_options)
        connection.do_get(dropping.endpoints[0].ticket, call_options).read_all()

    expect_failure(drop, "may only read", kind=flight.FlightUnauthorizedError)
    assert events_count(options()) > 0, "events is still there"
    expect_failure(lambda: connection.get_flight_info(flight.FlightDescriptor.for_command(b"\xff\xfe"), call_options), "neither a Flight SQL command nor UTF-8 SQL text")
    expect_failure(lambda: connection.get_flight_info(flight.FlightDescriptor.for_command("SELECT 1"), flight.FlightCallOptions()), kind=flight.FlightUnauthenticatedError)


def active_flight_queries():
    text = urllib.request.urlopen(ARGS.metrics, timeout=10).read().decode()
    total = 0
    for line in text.splitlines():
        if line.startswith("query_active_count") and 'protocol="flight"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} within {seconds} s")


def case_cancellation_stops_the_engine_query():
    call_options = options()
    connection = client()
    # An endless stream: ten billion rows.
    info = connection.get_flight_info(descriptor(sql.CommandStatementQuery(query="SELECT i, i * 3 AS x FROM range(10000000000) t(i)")), call_options)
    reader = connection.do_get(info.endpoints[0].ticket, call_options)
    reader.read_chunk()
    wait_for(lambda: active_flight_queries() >= 1, 30, "the query shows as active")
    reader.cancel()
    wait_for(lambda: active_flight_queries() == 0, 30, "the engine query stopped after the client cancelled")
    # CancelFlightInfo from another connection stops a stream read elsewhere.
    info = connection.get_flight_info(descriptor(sql.CommandStatementQuery(query="SELECT i FROM range(10000000000) t(i)")), call_options)
    reader = connection.do_get(info.endpoints[0].ticket, call_options)
    reader.read_chunk()
    request = flight_messages.CancelFlightInfoRequest()
    request.info.ParseFromString(info.serialize())
    answers = list(client().do_action(flight.Action("CancelFlightInfo", request.SerializeToString()), call_options))
    result = flight_messages.CancelFlightInfoResult()
    result.ParseFromString(answers[0].body.to_pybytes())
    assert result.status == flight_messages.CANCEL_STATUS_CANCELLED, result
    # read_chunk, not read_all: read_all's signal handling turns a CANCELLED status into KeyboardInterrupt.
    def read_rest():
        while True:
            reader.read_chunk()

    expect_failure(read_rest, "cancelled", kind=flight.FlightCancelledError)
    wait_for(lambda: active_flight_queries() == 0, 30, "the engine query stopped after CancelFlightInfo")


def case_ten_million_rows_decode_completely():
    call_options = options()
    table = query("SELECT i, i % 7 AS bucket, 'row ' || i AS label FROM range(10000000) t(i)", call_options)
    assert table.num_rows == 10_000_000, table.num_rows
    assert pc.sum(table.column("i")).as_py() == 10_000_000 * 9_999_999 // 2
    assert pc.sum(table.column("bucket")).as_py() == (10_000_000 // 7) * 21 + sum(range(10_000_000 % 7))
    # Every cell, not a sample: the server recycles the buffers its messages are encoded into.
    assert pc.count_distinct(table.column("i")).as_py() == 10_000_000
    assert pc.min_max(table.column("i")).as_py() == {"min": 0, "max": 9_999_999}
    expected_labels = pc.binary_join_element_wise("row ", pc.cast(table.column("i"), pa.string()), "")
    assert pc.all(pc.equal(table.column("label"), expected_labels)).as_py()


# Every DuckDB type with the Arrow type and the Python value a pyarrow user gets.
TYPE_CASES = [
    ("BOOLEAN", "true", pa.bool_(), True),
    ("TINYINT", "-7", pa.int8(), -7),
    ("SMALLINT", "-300", pa.int16(), -300),
    ("INTEGER", "-70000", pa.int32(), -70000),
    ("BIGINT", "-9000000000", pa.int64(), -9000000000),
    ("UTINYINT", "250", pa.uint8(), 250),
    ("USMALLINT", "65000", pa.uint16(), 65000),
    ("UINTEGER", "4000000000", pa.uint32(), 4000000000),
    ("UBIGINT", "18000000000000000000", pa.uint64(), 18000000000000000000),
    ("HUGEINT", "-170141183460469231731687303715884105727", pa.decimal128(38, 0), decimal.Decimal("-170141183460469231731687303715884105727")),
    ("UHUGEINT", "340282366920938463463374607431768211455", pa.decimal256(39, 0), decimal.Decimal("340282366920938463463374607431768211455")),
    ("FLOAT", "1.5", pa.float32(), 1.5),
    ("DOUBLE", "-2.25", pa.float64(), -2.25),
    ("DECIMAL(18,3)", "123456789012345.678", pa.decimal128(18, 3), decimal.Decimal("123456789012345.678")),
    ("DECIMAL(4,1)", "-12.5", pa.decimal128(4, 1), decimal.Decimal("-12.5")),
    ("VARCHAR", "'héllo ✓'", pa.utf8(), "héllo ✓"),
    ("BLOB", "'\\x00\\xFFab'::BLOB", pa.binary(), b"\x00\xffab"),
    ("DATE", "'2024-02-29'", pa.date32(), datetime.date(2024, 2, 29)),
    ("TIME", "'23:59:58.123456'", pa.time64("us"), datetime.time(23, 59, 58, 123456)),
    ("TIMETZ", "'11:30:00+02:00'", pa.utf8(), "11:30:00+02"),
    ("TIMESTAMP", "'2026-11-27 05:06:07.123456'", pa.timestamp("us"), datetime.datetime(2026, 11, 27, 5, 6, 7, 123456)),
    ("TIMESTAMP_S", "'2026-11-27 05:06:07'", pa.timestamp("s"), datetime.datetime(2026, 11, 27, 5, 6, 7)),
    ("TIMESTAMP_MS", "'2026-11-27 05:06:07.123'", pa.timestamp("ms"), datetime.datetime(2026, 11, 27, 5, 6, 7, 123000)),
    ("TIMESTAMP_NS", "'2026-11-27 05:06:07.123456789'", pa.timestamp("ns"), 1795755967123456789),  # compared as the stored integer (datetime has no nanoseconds)
    ("TIMESTAMPTZ", "'2026-11-27 05:06:07+00'", pa.timestamp("us", tz="UTC"), datetime.datetime(2026, 11, 27, 5, 6, 7, tzinfo=datetime.timezone.utc)),
    ("INTERVAL", "INTERVAL '1 year 2 days 3 seconds'", pa.month_day_nano_interval(), pa.MonthDayNano([12, 2, 3_000_000_000])),
    ("BIT", "'0101'", pa.utf8(), "0101"),
    ("VARINT", "'-99999999999999999999999'", pa.utf8(), "-99999999999999999999999"),
    ("UUID", "'5b6bb1c4-58d5-4d7c-8a4b-0c9e5e2f3a41'", pa.utf8(), "5b6bb1c4-58d5-4d7c-8a4b-0c9e5e2f3a41"),
    ("JSON", "'{\"a\": [1, 2]}'", pa.json_(pa.utf8()), '{"a": [1, 2]}'),
    ("INTEGER[]", "[1, NULL, 3]", pa.list_(pa.int32()), [1, None, 3]),
    ("VARCHAR[][]", "[['a'], [], NULL, ['b', 'c']]", pa.list_(pa.list_(pa.utf8())), [["a"], [], None, ["b", "c"]]),
    ("INTEGER[3]", "[7, 8, 9]", pa.list_(pa.int32(), 3), [7, 8, 9]),
    ("STRUCT(a INTEGER, b VARCHAR[])", "{'a': 1, 'b': ['x']}", pa.struct([("a", pa.int32()), ("b", pa.list_(pa.utf8()))]), {"a": 1, "b": ["x"]}),
    ("MAP(VARCHAR, INTEGER)", "MAP {'k1': 1, 'k2': 2}", pa.map_(pa.utf8(), pa.int32()), [("k1", 1), ("k2", 2)]),
]


def list_types_equal(got, want):
    """Arrow types, ignoring the names of list items and map entries (each writer picks its own)."""
    if pa.types.is_map(want):
        return pa.types.is_map(got) and list_types_equal(got.key_type, want.key_type) and list_types_equal(got.item_type, want.item_type)
    if pa.types.is_fixed_size_list(want):
        return pa.types.is_fixed_size_list(got) and got.list_size == want.list_size and list_types_equal(got.value_type, want.value_type)
    if pa.types.is_list(want):
        return pa.types.is_list(got) and list_types_equal(got.value_type, want.value_type)
    if pa.types.is_struct(want):
        return pa.types.is_struct(got) and [f.name for f in got] == [f.name for f in want] and all(list_types_equal(g.type, w.type) for g, w in zip(got, want))
    return got == want


def case_type_round_trips():
    call_options = options()
    columns = ", ".join(f"{literal}::{type_name} AS c{index}, NULL::{type_name} AS n{index}" for index, (type_name, literal, _, _) in enumerate(TYPE_CASES))
    table = query(f"SELECT {columns}", call_options)
    problems = []
    # UNION: a sparse union whose members are the union's members, the value that of the member set.
    union = query("SELECT u FROM (VALUES (union_value(n := 7)::UNION(n INTEGER, s VARCHAR)), (union_value(s := 'seven')::UNION(n INTEGER, s VARCHAR))) v(u)", call_options)
    union_type = union.schema.field("u").type
    if not (isinstance(union_type, pa.UnionType) and union_type.mode == "sparse" and [f.name for f in union_type] == ["n", "s"]):
        problems.append(f"UNION: Arrow type {union_type}, expected a sparse union of n, s")
    elif union.column("u").to_pylist() != [7, "seven"]:
        problems.append(f"UNION values {union.column('u').to_pylist()}")
    for index, (type_name, _, arrow_type, value) in enumerate(TYPE_CASES):
        column = table.column(f"c{index}")
        if not list_types_equal(column.type, arrow_type):
            problems.append(f"{type_name}: Arrow type {column.type}, expected {arrow_type}")
            continue
        got = column[0].value if pa.types.is_timestamp(column.type) and column.type.unit == "ns" else column[0].as_py()
        if got != value:
            problems.append(f"{type_name}: value {got!r}, expected {value!r}")
        if table.column(f"n{index}")[0].as_py() is not None:
            problems.append(f"{type_name}: NULL came back as {table.column(f'n{index}')[0].as_py()!r}")
    # ENUM: a dictionary of strings, the values as text.
    enum_table = query("SELECT x::ENUM('low', 'mid', 'high') AS level FROM (VALUES ('mid'), ('high'), ('mid'), (NULL)) v(x)", call_options)
    enum_type = enum_table.schema.field("level").type
    if not (pa.types.is_dictionary(enum_type) and enum_type.value_type == pa.utf8()):
        problems.append(f"ENUM: Arrow type {enum_type}, expected a dictionary of utf8")
    if enum_table.column("level").to_pylist() != ["mid", "high", "mid", None]:
        problems.append(f"ENUM values {enum_table.column('level').to_pylist()}")
    # Many rows of nested values survive batching.
    nested = query("SELECT i, [i, i + 1] AS pair, {'k': i::VARCHAR} AS s FROM range(5000) t(i) ORDER BY i", call_options)
    if nested.column("pair")[4999].as_py() != [4999, 5000] or nested.column("s")[123].as_py() != {"k": "123"}:
        problems.append("nested values over 5,000 rows")
    assert not problems, "\n".join(problems)


FAILING_QUERY = "SELECT CASE WHEN i = {at} THEN error('boom at {at}') ELSE i END AS v FROM range({rows}) t(i)"

# DuckDB 1.5 keeps only "Interrupted!" when the failure happened on one of its worker threads
# while no fetch was running (docs/engine.md, "A query that fails while streaming"): the
# runtime runs a SELECT once more to find the engine's message, and when that run does not
# fail the same way it reports what the engine kept; never a cancellation, never a complete result.
ENGINE_LOST_ITS_MESSAGE = "the engine kept only that it stopped the query"


def assert_engine_failure(message, expected):
    assert expected in message or ENGINE_LOST_ITS_MESSAGE in message, message
    assert "the query was cancelled" not in message, message


def read_failing(text, call_options):
    """Reads a failing query as a client would: what it got before the error, and the error."""
    connection = client()
    info = connection.get_flight_info(descriptor(sql.CommandStatementQuery(query=text)), call_options)
    rows = 0
    try:
        # A failure inside the first batch fails the DoGet before its schema message.
        reader = connection.do_get(info.endpoints[0].ticket, call_options)
        while True:
            chunk = reader.read_chunk()
            rows += chunk.data.num_rows
    except StopIteration:
        raise AssertionError(f"the stream ended as complete after {rows} rows: a failed query must end with an error")
    except pa.ArrowException as error:
        return rows, str(error)


def case_mid_stream_failure_ends_with_the_engine_error():
    call_options = options()
    for at, total in [(150000, 300000), (5000000, 10000000)]:
        rows, message = read_failing(FAILING_QUERY.format(at=at, rows=total), call_options)
        assert_engine_failure(message, f"boom at {at}")
        assert rows < total, rows
    # An error in the very first rows: GetFlightInfo or the DoGet fails, never a complete stream.
    try:
        rows, message = read_failing(FAILING_QUERY.format(at=0, rows=10), call_options)
        assert "boom at 0" in message, message
    except pa.ArrowException as error:
        assert "boom at 0" in str(error), str(error)
    # The failure is not cached: the same query fails again.
    rows, message = read_failing(FAILING_QUERY.format(at=150000, rows=300000), call_options)
    assert_engine_failure(message, "boom at 150000")


CASES = {name[len("case_"):]: function for name, function in globals().items() if name.startswith("case_")}


def main():
    global ARGS, sql, flight_messages
    parser = argparse.ArgumentParser()
    parser.add_argument("--generated", required=True)
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--metrics", required=True)
    parser.add_argument("--rw-key", required=True)
    parser.add_argument("--ro-key", required=True)
    parser.add_argument("cases", nargs="*")
    ARGS = parser.parse_args()
    sys.path.insert(0, ARGS.generated)
    from arrow.flight.protocol import flight_pb2
    from arrow.flight.protocol.sql import flight_sql_pb2

    sql = flight_sql_pb2
    flight_messages = flight_pb2
    run_cases(CASES, ARGS.cases, lambda case: case())


if __name__ == "__main__":
    main()
