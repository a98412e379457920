"""Where the ecosystem tests find the engine binary: $KIRALY_BIN, or ./kiraly
in the repository root (what `make` builds). Shared by the test_*.py files."""

import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def engine_path():
    return os.path.abspath(os.environ.get("KIRALY_BIN") or os.path.join(REPO, "kiraly"))


def require_engine(test):
    """The binary's path; fails (never skips) the test when it is missing."""
    path = engine_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        test.fail(f"engine binary {path} not found or not executable: build it with `make` "
                  f"or set KIRALY_BIN")
    return path
