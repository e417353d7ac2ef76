"""The README and docs/ pages: links that resolve, a short README, and examples that run.

Conventions (also stated in docs/index.md):

* a ```` ```console ```` block is a terminal session: each ``$`` line (``\\`` continues
  it) runs in bash from a scratch directory holding a link to ``examples/``, with
  ``rubricjudge`` on the PATH, and must exit 0; the lines under a command are output
  it must print (lines may be left out, not changed). One scratch directory per page,
  so a page's later commands see the files its earlier ones wrote.
* a ```` ```python ```` block right under a ``<!-- runnable -->`` comment runs as a
  script in such a directory, with ``judge="local"`` replaced by ``judge="fake"``;
  ``<!-- runnable needs=MODULE -->`` skips it where MODULE does not import (never under
  RUBRICJUDGE_REQUIRE_INTEGRATIONS, which CI sets).

Only these are run. Commands that need the local model (``--judge local``, which
downloads nothing but takes about a second per judgment), a provider key
(``openai/...``, ``anthropic/...``), a Ray cluster or a running server sit in plain
```` ``` ```` blocks: the docs show them and this test leaves them alone. A console
block that names any judge but ``fake`` fails here, so none can reach the network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
README_LIMIT = 12_000

MAIN_COMMAND = (
    'python3 -m venv .venv && CMAKE_ARGS="-DLLAVA_BUILD=OFF" .venv/bin/pip install -e '
    "'.[local]' && .venv/bin/rubricjudge grade examples/native/why_sky_blue.yaml "
    "examples/answers.jsonl -o graded.jsonl"
)
TEST_COMMAND = (
    'python3 -m venv .venv && CMAKE_ARGS="-DLLAVA_BUILD=OFF" .venv/bin/pip install -q -e '
    "'.[dev,local]' && .venv/bin/pytest -q"
)

FENCE = re.compile(r"^(`{3,})([^\n`]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
JUDGE_FLAG = re.compile(r"--(?:judge|judges|escalate-to)[ =](\S+)")


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _prose(text: str) -> str:
    """The page without fenced blocks and inline code, where links and headings live."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _links() -> Iterator[tuple[Path, str]]:
    for page in PAGES:
        for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # not http:, https:, mailto:
                yield page, target


@pytest.mark.parametrize(("page", "target"), list(_links()), ids=lambda v: getattr(v, "name", v))
def test_relative_links_resolve(page: Path, target: str) -> None:
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.exists(), f"{_rel(page)} links to {target!r}: no such file"
    if anchor:
        assert dest.suffix == ".md", f"{_rel(page)}: anchor {target!r} in a non-Markdown file"
        assert anchor in _anchors(dest), (
            f"{_rel(page)} links to {target!r}: {_rel(dest)} has no heading with that anchor "
            f"(it has: {', '.join(sorted(_anchors(dest)))})"
        )


def test_every_docs_page_is_linked_from_the_index() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for page in (ROOT / "docs").glob("*.md"):
        if page.name != "index.md":
            assert f"]({page.name})" in index, f"docs/index.md does not link {page.name}"


def test_readme_is_short_and_keeps_both_commands() -> None:
    raw = README.read_bytes()
    assert len(raw) <= README_LIMIT, f"README.md is {len(raw)} bytes, over {README_LIMIT}"
    text = raw.decode("utf-8")
    for name, command in (("main-command", MAIN_COMMAND), ("test-command", TEST_COMMAND)):
        assert text.count(f"<!-- {name} -->") == 1 and text.count(f"<!-- /{name} -->") == 1
        inside = text.split(f"<!-- {name} -->")[1].split(f"<!-- /{name} -->")[0]
        # what .ci/run extracts: the lines between the markers, without the fences
        lines = [ln for ln in inside.strip().splitlines() if not ln.startswith("```")]
        assert lines == [command], f"the {name} block changed: {lines!r}"


# -- runnable examples -----------------------------------------------------------------


@dataclass
class Command:
    """One ``$`` line of a console block and the output lines shown under it."""

    line: str
    output: list[str] = field(default_factory=list)


def _console_commands(page: Path) -> list[Command]:
    commands: list[Command] = []
    for match in FENCE.finditer(page.read_text(encoding="utf-8")):
        if match.group(2).strip() != "console":
            continue
        pending = ""
        for line in match.group(3).splitlines():
            if pending:
                pending += "\n" + line
            elif line.startswith("$ "):
                pending = line[2:]
            elif commands and line.strip():
                commands[-1].output.append(line.strip())
                continue
            else:
                continue
            if not pending.endswith("\\"):
                commands.append(Command(pending))
                pending = ""
        assert not pending, f"{_rel(page)}: a console command ends in a backslash"
    return commands


RUNNABLE = re.compile(r"^<!-- runnable(?: needs=([\w.,]+))? -->\n```python\n(.*?)^```", re.M | re.S)


def _runnable_blocks(page: Path) -> list[tuple[list[str], str]]:
    """Each runnable block's code and the modules it needs (``<!-- runnable needs=a,b -->``)."""
    text = page.read_text(encoding="utf-8")
    return [(needs.split(",") if needs else [], code) for needs, code in RUNNABLE.findall(text)]


def _runnable_python(page: Path) -> list[str]:
    return [code for _, code in _runnable_blocks(page)]


@pytest.fixture
def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working directory with ``examples/`` and an environment that keeps to it."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # the installed console script's target, run by this interpreter
    (ep,) = entry_points(group="console_scripts", name="rubricjudge")
    script = bin_dir / "rubricjudge"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom {ep.module} import {ep.attr}\n"
        f"sys.exit({ep.attr}())\n"
    )
    script.chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "RUBRICJUDGE_", "RUBRICATE_"))
    }
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp_path / "home"),
        RUBRICJUDGE_CACHE_DIR=str(tmp_path / "cache"),
        RUBRICJUDGE_REGISTRY=str(tmp_path / "registry.sqlite3"),
        MPLBACKEND="Agg",
    )
    return work, env


CONSOLE_PAGES = [p for p in PAGES if _console_commands(p)]
PYTHON_BLOCKS = [(p, i) for p in PAGES for i in range(len(_runnable_python(p)))]


def test_the_readme_has_runnable_examples() -> None:
    assert README in CONSOLE_PAGES and (README, 0) in PYTHON_BLOCKS


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_runnable_markers_sit_on_python_blocks(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    marked = len(re.findall(r"^<!-- runnable(?: needs=[\w.,]+)? -->", text, re.M))
    assert marked == len(_runnable_python(page)), (
        f"{_rel(page)}: a <!-- runnable --> comment is not right above a ```python block"
    )


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=_rel)
def test_console_examples_run(page: Path, scratch: tuple[Path, dict[str, str]]) -> None:
    work, env = scratch
    commands = _console_commands(page)
    for command in commands:
        for judge in JUDGE_FLAG.findall(command.line):
            assert set(judge.split(",")) == {"fake"}, (
                f"{_rel(page)}: {command.line!r} names judge {judge!r}; runnable examples use "
                "the fake judge (put the others in a plain ``` block)"
            )
    for command in commands:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", command.line],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        said = done.stdout + done.stderr
        assert done.returncode == 0, (
            f"{_rel(page)}: `{command.line}` exited {done.returncode}:\n{said[-3000:]}"
        )
        for line in command.output:
            assert line in said, f"{_rel(page)}: `{command.line}` did not print {line!r}:\n{said}"


@pytest.mark.parametrize(("page", "index"), PYTHON_BLOCKS, ids=lambda v: getattr(v, "name", v))
def test_python_examples_run(page: Path, index: int, scratch: tuple[Path, dict[str, str]]) -> None:
    work, env = scratch
    needs, code = _runnable_blocks(page)[index]
    for module in needs:  # an integration's framework: CI installs it, so there it must run
        if not os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
            pytest.importorskip(module, reason=f"{_rel(page)} block {index} needs {module}")
    code = code.replace('judge="local"', 'judge="fake"')
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{_rel(page)} block {index}:\n{code}\n{done.stderr[-3000:]}"


def test_cli_reference_names_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    (ep,) = entry_points(group="console_scripts", name="rubricjudge")
    main = ep.load()
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")

    def help_of(*argv: str) -> str:
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        return capsys.readouterr().out

    top = help_of()
    commands = re.findall(r"^    (\S+)\s", top.split("positional arguments:")[1], re.M)
    assert len(commands) >= 14, top
    for name in commands:
        assert f"## {name}\n" in reference, f"docs/cli.md has no section for {name}"
        text = help_of(name)
        if name == "registry":
            subs = re.findall(r"^    (\S+)\s", text.split("positional arguments:")[1], re.M)
            text += "".join(help_of(name, sub) for sub in subs)
            for sub in subs:
                assert re.search(f"`{sub}[ `]", reference), f"docs/cli.md lacks registry {sub}"
        for flag in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", text)) - {"--help"}):
            assert f"`{flag}" in reference, f"docs/cli.md does not document {name} {flag}"
    assert "--version" in top and "`rubricjudge --version`" in reference
