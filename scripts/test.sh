#!/usr/bin/env bash
# The test suite: set up if needed, then run the default test groups (unit, model, browser, PostgreSQL)
# on the real packaged models, a real database and a real Chromium. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Lint and format first: ruff's configuration is in pyproject.toml (a second or two).
.venv/bin/ruff check --quiet . && .venv/bin/ruff format --check --quiet .
# Browser tests drive Debian's Chromium (never `playwright install`).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test: installing Debian's chromium for the browser tests" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "test: chromium is missing; install it (apt-get install chromium) or set REA_CHROMIUM" >&2
  fi
fi
# PostgreSQL for the annotation store tests: Debian's server, a throwaway cluster in a temp dir
# owned by a non-root user, on a unix socket only, stopped and removed at exit.
if [ -z "${REA_TEST_POSTGRES_URL:-}" ]; then
  pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
  if [ -z "$(pg_bin)" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test: installing Debian's postgresql for the annotation store tests" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  PG_BIN=$(pg_bin)
  if [ -n "$PG_BIN" ]; then
    PG_DIR=$(mktemp -d /tmp/rea-pg.XXXXXX)
    as_pg=()
    if [ "$(id -u)" = 0 ]; then chown postgres "$PG_DIR"; as_pg=(runuser -u postgres --); fi
    "${as_pg[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U rea --auth=trust -E UTF8 >/dev/null
    "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
      -o "-k $PG_DIR -c listen_addresses= -p 5432 -c fsync=off" start >/dev/null
    trap '"${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null; rm -rf "$PG_DIR"' EXIT
    export REA_TEST_POSTGRES_URL="postgresql+psycopg://rea@/postgres?host=$PG_DIR"
  else
    echo "test: PostgreSQL is missing; its tests skip (and fail under CI)" >&2
  fi
fi
export HF_HUB_OFFLINE=1 GRADIO_ANALYTICS_ENABLED=False
# The default suite leaves out the `slow` group (end-to-end chats and the eval commands' long runs,
# about 7 minutes): run it with `./scripts/test.sh -m slow`. An explicit -m picks the groups itself.
marker=(-m "not slow")
for arg in "$@"; do
  case "$arg" in -m|-m*|--markexpr|--markexpr=*) marker=() ;; esac
done
.venv/bin/python -m pytest "${marker[@]}" "$@"
