"""The Streamlit components' JavaScript and CSS, as files: one folder per component (``index.js`` its entry
point, ``style.css`` its styles), and ``shared/`` for what two components share.

Streamlit (1.67) serves a component's assets from files only for an installed package that declares an
``asset_dir`` in its ``pyproject.toml``; this app runs from its source tree, so the text is read here at
import and passed as the component's ``js`` / ``css`` strings (served, as before, as a module the page
builds). The files are real ES modules: ``eslint ui/components`` lints them and ``node --test tests/js``
imports their pure parts (token selection, keys, word conversion) without a browser. A component's
``index.js`` imports those parts with plain relative imports; ``bundle`` puts each imported module once,
before the module that imports it, and drops the import lines, so the browser gets one module.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The only import form the bundle understands: named imports from a relative path inside ui/components.
_IMPORT = re.compile(r'^import \{[^}]*\} from "(\.{1,2}/[A-Za-z0-9_./-]+\.js)";[ \t]*\n', re.M)
_ANY_IMPORT = re.compile(r"^\s*import[\s{*\"']", re.M)


def asset(path: str) -> str:
    """The text of one file under ui/components (``"span_editor/style.css"``)."""
    return _inside(HERE / path).read_text(encoding="utf-8")


def _inside(path: Path) -> Path:
    path = path.resolve()
    if HERE not in path.parents:
        raise ValueError(f"{path} is outside {HERE}")
    return path


def bundle(entry: str) -> str:
    """One ES module from ``entry`` (a path under ui/components, e.g. ``"span_editor/index.js"``) and the
    modules it imports, each once, dependencies first. An import of another form is a ValueError: the
    browser would fail on it."""
    order: list[Path] = []
    visiting: set[Path] = set()

    def visit(path: Path) -> None:
        if path in order:
            return
        if path in visiting:
            raise ValueError(f"import cycle at {path.relative_to(HERE)}")
        visiting.add(path)
        text = path.read_text(encoding="utf-8")
        for dep in _IMPORT.findall(text):
            visit(_inside(path.parent / dep))
        visiting.discard(path)
        order.append(path)

    visit(_inside(HERE / entry))
    parts = []
    for path in order:
        text = _IMPORT.sub("", path.read_text(encoding="utf-8"))
        if _ANY_IMPORT.search(text):
            raise ValueError(f"{path.relative_to(HERE)}: only `import {{ a, b }} from \"./x.js\";` can be bundled")
        parts.append(f"// ---- ui/components/{path.relative_to(HERE).as_posix()}\n{text}")
    return "\n".join(parts)
