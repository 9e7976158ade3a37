"""The examples in the installed package's docstrings run and print what they show."""

import doctest

import pytest

import chessgraph
import chessgraph.duckdb
import chessgraph.spark


@pytest.mark.parametrize("module, least", [(chessgraph, 14), (chessgraph.duckdb, 4), (chessgraph.spark, 1)])
def test_docstring_examples(module, least):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.attempted >= least
    assert result.failed == 0
