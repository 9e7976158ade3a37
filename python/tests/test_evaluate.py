"""Evaluations from the package equal the `chessgraph` executable's (`rate evaluator
--output -`, static column) for every kind of evaluator it takes: the built-ins, an
evaluator file, an evaluator stored by `tune`, an NNUE file and a value network file."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import chessgraph
from conftest import FIXTURES


@pytest.fixture(scope="module")
def trained(fixtures_db):
    """Evaluators of every kind made by the executable in the fixtures' directory."""
    cli = fixtures_db
    cli.run("tune", "--max-steps", "1", "-q", "--name", "mine")
    cli.run("export", "evaluator", "simplified", "--out", "simplified.json")
    cli.run("train", "--epochs", "1", "--hidden", "8", "--out", "tiny.nnue", "-q")
    cli.run(
        "train", "cnn", "--arch", "cnn-study", "--channels", "4", "--blocks", "2",
        "--epochs", "1", "--batch", "128", "--out", "tiny.safetensors",
    )
    return cli


@pytest.mark.parametrize(
    "name, tolerance",
    [
        ("material", 0),
        ("simplified", 0),
        ("seed003", 0),
        ("nnue", 0),
        ("simplified.json", 0),
        ("mine", 0),
        ("tiny.nnue", 0),
        # The network's batch and the executable's may round the last float differently.
        ("tiny.safetensors", 1),
    ],
)
def test_evaluations_are_the_executables(trained, name, tolerance):
    cli = trained
    positions = str(FIXTURES / "eval-positions-2k.csv")
    theirs = cli.csv("rate", "evaluator", "-q", "--input", positions, "--evaluator", name, "--output", "-")
    assert theirs.num_rows > 1900
    path = cli.db.parent / name
    evaluator = str(path) if path.exists() else name
    ours = chessgraph.evaluate(theirs.column("fen"), evaluator, db=cli.db)
    assert ours.type == pa.int32()
    diff = pc.max(pc.abs(pc.subtract(ours.cast(pa.int64()), theirs.column("static").cast(pa.int64()))))
    assert diff.as_py() <= tolerance, name


def test_the_sample_evaluates_as_the_executable_says(sample_db):
    table = sample_db.csv("rate", "evaluator", "-q", "--part", "all", "--evaluator", "nnue", "--output", "-")
    assert table.num_rows > 170_000
    ours = chessgraph.evaluate(table.column("fen"), "nnue")
    assert pc.all(pc.equal(ours.cast(pa.int64()), table.column("static").cast(pa.int64()))).as_py()


def test_unknown_evaluators_and_nulls():
    with pytest.raises(ValueError, match="no-such-evaluator"):
        chessgraph.evaluate(["4k3/8/8/8/8/8/4P3/4K3 w - -"], "no-such-evaluator")
    e = chessgraph.evaluator("material")
    assert e is chessgraph.evaluator("material")
    assert repr(e) == 'Evaluator("material")'
    black = chessgraph.evaluate(["4k3/4p3/8/8/8/8/8/4K3 b - -", None], e)
    assert black.to_pylist() == [-100, None]
