"""A throw-away PostgreSQL schema: isolates one test run (or trial) on a shared server.

Several people and test runs share one PostgreSQL database; each run gets its own schema, reached
through the connection's `search_path`, and drops it afterwards. Without the schema in the URL
the store would use `public`, shared by everyone.

    with temporary_schema("postgresql+psycopg://postgres@127.0.0.1:5432/test") as url:
        store = SqlStore(url)
"""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from sqlalchemy.engine import make_url

from engine.errors import StoreUnavailableError


def schema_url(url: str, schema: str) -> str:
    """`url` with its connections' search_path set to `schema` (PostgreSQL URLs only)."""
    parsed = make_url(url)
    return parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False
    )


@contextmanager
def temporary_schema(url: str, prefix: str = "thinkpath_test") -> Iterator[str]:
    """Create a fresh schema, yield a store URL that uses it, then drop it with its contents."""
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    parsed = make_url(url).set(drivername="postgresql")
    plain = parsed.render_as_string(hide_password=False)
    try:
        with psycopg.connect(plain, autocommit=True, connect_timeout=5) as connection:
            connection.execute(f'CREATE SCHEMA "{schema}"')
    except psycopg.Error as error:
        raise StoreUnavailableError(
            f"cannot reach PostgreSQL at {parsed.render_as_string(hide_password=True)}: {error}"
        ) from error
    try:
        yield schema_url(url, schema)
    finally:
        with psycopg.connect(plain, autocommit=True, connect_timeout=5) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
