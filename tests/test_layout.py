"""The product's layout rules that code review alone would let slip."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", ["corpus", "db"])
def test_domain_and_database_code_never_import_streamlit(folder):
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / folder).rglob("*.py"))
                 if "streamlit" in _imported_modules(p)]
    assert offenders == []


def test_the_import_scan_sees_a_lazy_streamlit_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from streamlit.testing.v1 import AppTest\n", encoding="utf-8")
    assert "streamlit" in _imported_modules(module)


def test_app_serves_json_routes_beside_the_script():
    """`streamlit run app.py` must find the st.App (AST discovery) and its routes, or look-ups would 404."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.app_name == "app"
