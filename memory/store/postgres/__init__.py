"""The PostgreSQL store (`[store] url`): the same interface on psycopg, with the schema and the
connections it needs."""
