#!/bin/sh
# Run once by the postgres image when its data volume is new (docker-entrypoint-initdb.d), as
# POSTGRES_USER, the tables' owner: the runtime role the console and the worker connect as. It
# gets no grants here; the console's start grants it what it needs after each migration
# (lib/db/roles.ts, docs/threat-model.md).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v role="$APP_DB_USER" -v password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE :"role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOBYPASSRLS NOREPLICATION
  PASSWORD :'password';
SQL
