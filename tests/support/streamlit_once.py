"""What Streamlit does again for every AppTest and every served app, done once per test process.

- It scans the metadata of every installed package for the components they declare (about half a second, most of
  a short page test, and about 7% of a browser test's server); the installed packages do not change during a run.
- It parses, rewrites ("magic": a bare expression becomes ``st.write``) and compiles each script it runs once per
  script cache, and every AppTest has one of its own (about a tenth of a page test's CPU time). The compiled code is
  kept by the file's path and text and by whether magic is on, so a script that changes is compiled again.

Used by tests/conftest.py (the AppTests of a worker) and tests/browser/app_zygote.py (the servers it forks: the scan).
"""

from __future__ import annotations

import os


def scan_components_once() -> None:
    from streamlit.components.v2 import manifest_scanner

    found = manifest_scanner.scan_component_manifests()
    manifest_scanner.scan_component_manifests = lambda max_workers=None: list(found)


def compile_scripts_once() -> None:
    """Every ScriptCache of this process compiles through Streamlit's own code, once per path, text and magic."""
    from streamlit import config
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.source_util import open_python_file

    compiled: dict[tuple[str, str, bool], object] = {}
    get_bytecode = ScriptCache.get_bytecode

    def get_bytecode_once(self, script_path: str):
        path = os.path.abspath(script_path)
        with open_python_file(path) as f:
            key = (path, f.read(), bool(config.get_option("runner.magicEnabled")))
        if key not in compiled:
            compiled[key] = get_bytecode(ScriptCache(), path)  # a cache of its own: never an older text's code
        return compiled[key]

    ScriptCache.get_bytecode = get_bytecode_once
