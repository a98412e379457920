"""Self-test of tools/import_graph.py on small made-up source trees: the
edges it sees (use-trees, `kiraly::` in main.rs, submodules counted as their
parent) and those it must not (comments, strings, `#[cfg(test)]` items,
`super::`), and that a cycle or a file over the line limit fails the check.

    python3 -m unittest tools/test_import_graph.py
"""

import contextlib
import importlib.util
import io
import os
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))


def load():
    spec = importlib.util.spec_from_file_location("import_graph", os.path.join(HERE, "import_graph.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ImportGraph(unittest.TestCase):
    def setUp(self):
        self.graph = load()
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.graph.SRC = self.dir.name

    def write(self, files):
        for rel, text in files.items():
            path = os.path.join(self.dir.name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def run_main(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), mock.patch("sys.argv", ["import_graph.py"]):
            code = self.graph.main()
        return code, out.getvalue()

    def test_edges_seen_and_not_seen(self):
        self.write({
            "lib.rs": "pub mod a; pub mod b; pub mod c; pub mod d; pub mod eval;\n",
            "main.rs": "use kiraly::{a, eval::evaluate};\n",
            "a.rs": "use crate::b::X;\nfn f() { crate::c::g(); }\n",
            "b.rs": "use crate::{d::{Y, Z}, eval};\n"
                    "// use crate::a;\n"
                    "const S: &str = \"crate::a::h\";\n"
                    "#[cfg(test)]\nmod tests { use crate::a::X; }\n",
            "c.rs": "",
            "d.rs": "",
            "eval/mod.rs": "pub mod king; use super::*;\n",
            "eval/king.rs": "use crate::eval::S; use super::T; use crate::d;\n",
        })
        graph = self.graph.edges()
        self.assertEqual(graph["main"], {"a", "eval"})
        self.assertEqual(graph["a"], {"b", "c"})
        self.assertEqual(graph["b"], {"d", "eval"})
        self.assertEqual(graph["eval"], {"d"})
        self.assertEqual(graph["c"], set())
        code, out = self.run_main()
        self.assertEqual(code, 0, out)
        self.assertIn("no import cycle", out)

    def test_a_cycle_fails(self):
        self.write({
            "a.rs": "use crate::b::X;\n",
            "b.rs": "use crate::c;\n",
            "c.rs": "fn f() { crate::a::g(); }\n",
        })
        code, out = self.run_main()
        self.assertEqual(code, 1, out)
        self.assertIn("import cycle: a -> b -> c -> a", out)

    def test_a_file_over_the_limit_fails(self):
        limit = self.graph.MAX_LINES
        self.write({"short.rs": "\n" * limit, "deep/long.rs": "\n" * (limit + 1)})
        self.assertEqual(self.graph.long_files(), [(os.path.join("deep", "long.rs"), limit + 1)])
        code, out = self.run_main()
        self.assertEqual(code, 1, out)
        self.assertIn(f"src/deep/long.rs: {limit + 1} lines", out)

    def test_the_engine_itself_passes(self):
        self.graph.SRC = os.path.join(HERE, "..", "src")
        code, out = self.run_main()
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main()
