"""The versioned rubric registry and the storage it runs on (SQLite, PostgreSQL)."""
