"""The tests' page-script compilation, shared by every script cache of a worker (tests/support/streamlit_once.py)."""

from __future__ import annotations

from streamlit.runtime.scriptrunner.script_cache import ScriptCache


def test_two_script_caches_share_one_compilation_and_a_changed_script_is_compiled_again(tmp_path):
    script = tmp_path / "page.py"
    script.write_text("x = 1\nx\n", encoding="utf-8")
    first, second = ScriptCache(), ScriptCache()
    code = first.get_bytecode(str(script))
    assert second.get_bytecode(str(script)) is code
    assert "st" in code.co_names or "__streamlitmagic__" in code.co_names  # the bare ``x`` was rewritten (magic)
    script.write_text("x = 2\n", encoding="utf-8")
    changed = second.get_bytecode(str(script))
    assert changed is not code
    namespace: dict = {}
    exec(changed, namespace)
    assert namespace["x"] == 2
