"""Shared set-up of the package's tests: the `chessgraph` executable whose answers the
package must reproduce, and databases it made.

The executable is `$CHESSGRAPH_BIN`, else the repository's `target/release/chessgraph`,
else `target/debug/chessgraph`. The 200k sample is `../shared/data` beside the clone: where
it is missing the tests that need it are skipped, except under
`CHESSGRAPH_TEST_TOOLS=required` (CI), where they fail.
"""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared" / "data"


def binary() -> Path:
    if "CHESSGRAPH_BIN" in os.environ:
        return Path(os.environ["CHESSGRAPH_BIN"]).resolve()
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "chessgraph"
        if path.exists():
            return path
    raise RuntimeError("no chessgraph executable: build it (cargo build) or set CHESSGRAPH_BIN")


class Cli:
    """Runs the chessgraph executable on one database."""

    def __init__(self, db: Path):
        self.db = db
        self.bin = binary()

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [str(self.bin), "--db", str(self.db), *args],
            cwd=self.db.parent,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"chessgraph {' '.join(args)}:\n{done.stderr}"
        return done.stdout

    def csv(self, *args: str) -> pa.Table:
        """The CSV a command writes to standard output, as a table (column types as
        pyarrow's CSV reader infers them)."""
        return pacsv.read_csv(io.BytesIO(self.run(*args).encode()))

    def sql(self, query: str) -> pa.Table:
        """A query's answer through `chessgraph sql --format jsonl` (JSON keeps NULL apart
        from empty text), column types as pyarrow's JSON reader infers them."""
        return pajson.read_json(io.BytesIO(self.run("sql", "--format", "jsonl", query).encode()))


def need_shared() -> Path:
    if SHARED.is_dir():
        return SHARED
    if os.environ.get("CHESSGRAPH_TEST_TOOLS") == "required":
        pytest.fail("CHESSGRAPH_TEST_TOOLS=required and this test needs ../shared/data beside the clone")
    pytest.skip("needs ../shared/data beside the clone")


@pytest.fixture(scope="session")
def fixtures_db(tmp_path_factory) -> Cli:
    """The fixtures' positions (CSV, PGN and Lichess evaluations), analyzed with every edge."""
    cli = Cli(tmp_path_factory.mktemp("fixtures") / "f.db")
    for name in ("positions-2000.csv", "three-games.pgn", "lichess-evals.jsonl", "wac.epd"):
        cli.run("import", "-q", str(FIXTURES / name))
    cli.run("analyze", "-q", "--edges", "all")
    return cli


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Cli:
    """The 200k sample, imported and analyzed."""
    shared = need_shared()
    cli = Cli(tmp_path_factory.mktemp("sample") / "s.db")
    cli.run("import", "-q", "--analyze", str(shared / "positions-200k.csv.zst"))
    return cli
