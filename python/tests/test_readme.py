"""The README's Python example runs as written on the Quick start's database."""

from __future__ import annotations

import os
import re

from conftest import FIXTURES, ROOT, Cli


def test_the_readme_example_runs(tmp_path, capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## From SQL, Python") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "out").mkdir()
    cli = Cli(tmp_path / "out" / "quick.db")
    cli.run("import", "-q", str(FIXTURES / "positions-2000.csv"), str(FIXTURES / "three-games.pgn"))
    cli.run("analyze", "-q")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        scope: dict = {}
        exec(compile(code, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    df = scope["df"]
    assert len(df) > 1900 and df["nnue"].notna().all()
    assert "passed_pawns_black" in capsys.readouterr().out  # describe() of the 24 columns
