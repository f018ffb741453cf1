"""Every SQL statement: the SQLite store and its table gateways, migrations, the in-RAM vector
matrix; PostgreSQL in postgres/."""
