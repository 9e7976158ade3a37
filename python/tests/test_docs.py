"""The examples in the installed package's docstrings run and print what they show."""

import doctest

import chessgraph


def test_docstring_examples():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(chessgraph, optionflags=flags, verbose=False)
    assert result.attempted >= 12
    assert result.failed == 0
