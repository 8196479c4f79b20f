import os
import shutil

import pytest

import sawah


@pytest.fixture(scope="session")
def ur2_table(tmp_path_factory):
    """ur-2 solved exactly, written as a table file."""
    path = tmp_path_factory.mktemp("tables") / "ur-2.table"
    start_value = sawah.solve("ur-2", str(path))
    return path, start_value


@pytest.fixture(scope="session")
def sawah_bin():
    """The `sawah` command line, to compare answers with: $SAWAH_BIN, or
    `sawah` on the PATH; the tests that need it are skipped without it."""
    path = os.environ.get("SAWAH_BIN") or shutil.which("sawah")
    if not path or not os.path.exists(path):
        pytest.skip("no sawah binary (set SAWAH_BIN)")
    return path
