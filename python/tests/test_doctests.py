"""The examples in the package's docstrings run as written (the Python
package's doctests: its Rust crate is a cdylib, which rustdoc cannot
test)."""

import doctest

import sawah


def test_the_module_examples_run():
    failures, tried = doctest.testmod(sawah, optionflags=doctest.ELLIPSIS)
    assert tried >= 3
    assert failures == 0
