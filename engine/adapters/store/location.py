"""Where a store lives: its URL under the data directory, without importing a database library."""

from pathlib import Path

STORE_FILE = "store.sqlite3"


def sqlite_url(path: Path | str) -> str:
    """The SQLAlchemy URL of a SQLite store file."""
    return f"sqlite:///{Path(path).expanduser().resolve()}"


def default_store_url(home: Path | str) -> str:
    """The URL of the default store under a data directory (`THINKPATH_HOME`)."""
    return sqlite_url(Path(home).expanduser() / STORE_FILE)
