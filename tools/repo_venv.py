"""Lets `python3 tools/match.py` (and the other tools) find python-chess in
the repository's `.venv/`, which `make venv` or `make test` fills from
`requirements.txt`, when the interpreter that started them lacks it."""

import importlib
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(REPO, ".venv")


def require(module):
    """Imports `module`; without it, restarts the program under the
    repository's virtual environment, or exits with what to run."""
    try:
        importlib.import_module(module)
        return
    except ImportError:
        pass
    python = os.path.join(VENV, "bin", "python3")
    inside = os.path.realpath(sys.prefix) == os.path.realpath(VENV)
    if os.access(python, os.X_OK) and not inside:
        os.execv(python, [python] + sys.argv)
    sys.exit(f"{os.path.basename(sys.argv[0])}: the Python package '{module}' is missing: "
             f"run `make venv` in {REPO} (it fills .venv/ from requirements.txt), "
             f"or `pip install -r requirements.txt`")
