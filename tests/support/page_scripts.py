"""Page scripts compiled once per test process instead of once per script cache.

Streamlit parses each script it runs, rewrites it ("magic": a bare expression becomes ``st.write``) and compiles it,
once per script cache: every AppTest has one of its own, so each page test did it again for app.py and its page
(about a tenth of a page test's CPU time). The compiled code is kept by the file's path and text and by whether
magic is on, so a script that changes is compiled again.
"""

from __future__ import annotations

import os

_compiled: dict[tuple[str, str, bool], object] = {}


def _compile(path: str, text: str, magic_enabled: bool):
    """What Streamlit's ScriptCache.get_bytecode makes of the file (streamlit/runtime/scriptrunner/script_cache.py)."""
    from streamlit.runtime.scriptrunner import magic

    body = magic.add_magic(text, path) if magic_enabled else text
    return compile(body, path, mode="exec", flags=0, dont_inherit=1, optimize=-1)


def install() -> None:
    """Every ScriptCache of this process looks here first."""
    from streamlit import config
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.source_util import open_python_file

    def get_bytecode(self, script_path: str):
        path = os.path.abspath(script_path)
        with open_python_file(path) as f:
            key = (path, f.read(), bool(config.get_option("runner.magicEnabled")))
        if key not in _compiled:
            _compiled[key] = _compile(*key)
        return _compiled[key]

    ScriptCache.get_bytecode = get_bytecode

