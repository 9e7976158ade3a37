"""The type stubs of the extension module name exactly what it has."""

import ast
from pathlib import Path

import chessgraph
from chessgraph import _chessgraph

STUBS = Path(__file__).resolve().parents[1] / "chessgraph" / "_chessgraph.pyi"


def test_stubs_name_every_member_and_no_other():
    tree = ast.parse(STUBS.read_text())
    stubbed = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stubbed.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            stubbed.add(node.target.id)
    public = {n for n in dir(_chessgraph) if not n.startswith("_")} | {"__version__"}
    assert stubbed == public
    methods = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert {"evaluate", "name", "__init__"} <= methods
    assert {m for m in dir(chessgraph.Evaluator) if not m.startswith("_")} == {"evaluate", "name"}
