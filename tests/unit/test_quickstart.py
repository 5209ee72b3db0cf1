"""The README's two Quickstart commands are the ones CI runs, and the app's install carries no test tools."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEST_TOOLS = ("pytest", "playwright", "httpx2")


def _quickstart_commands() -> list[str]:
    quickstart = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", quickstart, flags=re.S)]


def _packages(name: str) -> list[str]:
    lines = ROOT.joinpath(name).read_text(encoding="utf-8").splitlines()
    return [re.split(r"[=<>\[ ]", line, maxsplit=1)[0].lower() for line in lines if line and not line.startswith("#")]


def test_the_quickstart_is_exactly_two_commands():
    commands = _quickstart_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands)


def test_ci_runs_the_readmes_test_command():
    ci_lines = ROOT.joinpath(".ci/run").read_text(encoding="utf-8").splitlines()
    assert _quickstart_commands()[1] in ci_lines


def test_the_app_command_installs_only_the_runtime_requirements():
    app_command = _quickstart_commands()[0]
    assert "-r requirements.txt" in app_command and "requirements-dev" not in app_command
    assert not set(TEST_TOOLS) & set(_packages("requirements.txt"))


def test_the_test_requirements_add_the_test_tools_to_the_runtime_pins():
    dev = _packages("requirements-dev.txt")
    assert "-r" in dev  # "-r requirements.txt": one list of runtime pins, not a copy
    assert set(TEST_TOOLS) <= set(dev)
    assert not set(_packages("requirements.txt")) & set(dev)
