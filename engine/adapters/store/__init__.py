"""Store adapters: in-memory (tests, throw-away engines) and SQLModel (SQLite, PostgreSQL)."""
