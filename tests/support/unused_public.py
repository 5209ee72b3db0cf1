"""Public top-level functions of ``corpus/``, ``db/`` and ``ui/`` that the product never calls.

``python -m tests.support.unused_public`` lists them with the test files that call them ("NOWHERE": nothing
does). A name counts as used in a file where it appears as a name, an attribute, an imported alias or a word
in a string (``getattr``, entry points, docs of a route); a use inside a function that is itself unused does
not count (to a fixpoint), nor does a function's mention of its own name. Files under ``tests/`` are not the
product. Alembic's migrations (``db/migrations``) are left out: Alembic calls their ``upgrade`` and
``downgrade`` by name.
"""

from __future__ import annotations

import ast
import os
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".git", "node_modules", "__pycache__", "test-artifacts", "exports", ".benchmarks", ".pytest_cache"}
SCANNED = ("corpus", "db", "ui")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
OTHER_SUFFIXES = {".js", ".mjs", ".sh", ".toml", ".ini", ".cfg"}


def _words(node: ast.AST) -> list[str]:
    out: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.alias):
            out.append(n.name.split(".")[-1])
            if n.asname:
                out.append(n.asname)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out += WORD.findall(n.value)
    return out


def _files(root: Path, suffixes: set[str]):
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and d != "fixtures")
        for name in sorted(names):
            path = Path(folder, name)
            if path.suffix in suffixes:
                yield path.relative_to(root).as_posix(), path


def unused_public(root: Path = ROOT) -> dict[str, list[str]]:
    """``"module.name"`` of every public top-level function of the scanned folders the product never calls,
    with the test files that call it (empty: nothing does)."""
    defined: dict[tuple[str, str], int] = {}
    uses: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    inside: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for rel, path in _files(root, {".py"}):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            words = _words(node)
            for word in words:
                uses[word][rel] += 1
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for word in words:
                    inside[(rel, node.name)][word] += 1
                if (rel.split("/")[0] in SCANNED and not rel.startswith("db/migrations/")
                        and not node.name.startswith("_")):
                    defined[(rel, node.name)] = node.lineno
    other = "\n".join(path.read_text(encoding="utf-8", errors="ignore") for _, path in _files(root, OTHER_SUFFIXES))
    unused: set[tuple[str, str]] = set()
    while True:
        found = set()
        for rel, name in defined:
            discounted = unused | {(rel, name)}
            product = 0
            for file, count in uses.get(name, {}).items():
                if file.startswith("tests/"):
                    continue
                count -= sum(inside[(f, g)].get(name, 0) for f, g in discounted if f == file)
                product += max(count, 0)
            if product == 0 and not re.search(rf"\b{re.escape(name)}\b", other):
                found.add((rel, name))
        if found == unused:
            break
        unused = found
    return {
        f"{rel[:-3].replace('/', '.')}.{name}": sorted(f for f in uses.get(name, {}) if f.startswith("tests/"))
        for rel, name in sorted(unused)
    }


if __name__ == "__main__":
    for dotted, tests in unused_public().items():
        print(f"{dotted}  <- {', '.join(tests) or 'NOWHERE'}")
