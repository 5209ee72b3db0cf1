"""The components' JavaScript and CSS are files under ui/components, and what Streamlit gets is built from
them: each component's modules bundled into one ES module that node accepts (no import left for the
browser to resolve), the CSS as it is in its file. The bundler refuses what it cannot bundle."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ui import components
from ui.components import HERE, asset, bundle

NODE = shutil.which("node")

ENTRIES = ["span_editor/index.js", "translation_editor/index.js", "kept_text/index.js", "session_nav/index.js"]


def test_every_component_file_is_reached_by_a_bundle_or_served_as_css():
    """No file lies beside the components unused (a module nothing imports would be linted and tested but
    never reach the browser)."""
    used = set()
    for entry in ENTRIES:
        text = bundle(entry)
        used |= {line.removeprefix("// ---- ui/components/") for line in text.splitlines()
                 if line.startswith("// ---- ")}
    js = {p.relative_to(HERE).as_posix() for p in HERE.rglob("*.js")}
    assert js == used
    assert {p.relative_to(HERE).as_posix() for p in HERE.rglob("*.css")} == {
        "span_editor/style.css", "translation_editor/style.css", "kept_text/style.css"}


def test_the_modules_streamlit_gets_are_the_files():
    from ui import session_nav, span_editor, translation_editor

    assert span_editor._JS == bundle("span_editor/index.js")
    assert span_editor._CSS == asset("span_editor/style.css")
    assert translation_editor._JS == bundle("translation_editor/index.js")
    assert translation_editor._CSS == asset("translation_editor/style.css")
    assert translation_editor._KEPT_JS == bundle("kept_text/index.js")
    assert translation_editor._KEPT_CSS == asset("kept_text/style.css")
    assert translation_editor.HELPERS_JS == asset("translation_editor/text.js")
    assert session_nav._JS == bundle("session_nav/index.js")
    # the pure parts come before the code that uses them, once each, and no import is left
    text = bundle("span_editor/index.js")
    assert text.index("export function keyCommand") < text.index("class SpanEditor")
    assert text.count("export function el(") == 1
    assert "\nimport " not in text and not text.startswith("import ")
    assert text.count("export default function") == 1


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("entry", ENTRIES)
def test_each_bundle_is_one_valid_es_module(tmp_path, entry):
    path = tmp_path / "bundle.mjs"
    path.write_text(bundle(entry), encoding="utf-8")
    done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_bundler_refuses_what_the_browser_could_not_load(tmp_path, monkeypatch):
    monkeypatch.setattr(components, "HERE", tmp_path)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "a.js").write_text('import { b } from "./b.js";\nexport default function () { b(); }\n')
    (tmp_path / "c" / "b.js").write_text('import { a } from "./a.js";\nexport function b() { a(); }\n')
    with pytest.raises(ValueError, match="cycle"):
        components.bundle("c/a.js")
    (tmp_path / "c" / "d.js").write_text('import * as x from "./b.js";\nexport default function () { x.b(); }\n')
    with pytest.raises(ValueError, match="can be bundled"):
        components.bundle("c/d.js")
    (tmp_path / "c" / "e.js").write_text('import { y } from "../../y.js";\nexport default function () { y(); }\n')
    with pytest.raises(ValueError, match="outside"):
        components.bundle("c/e.js")
    with pytest.raises(ValueError, match="outside"):
        components.asset("../x.css")


def test_the_translation_editor_names_no_aspect():
    """A blind task's page gets the same editor: its code and styles must not name the aspects the aware
    phase maps (tests/pages/test_translate_page.py checks the whole page)."""
    from ui import translation_editor

    for text in (translation_editor._JS, translation_editor._CSS):
        assert "aspect" not in text.lower()
