"""Ctrl-C at any moment of a command is one line and exit code 130, never a traceback.

Issue 23, N15: an interrupt in the first seconds (while the commands and their
libraries loaded, before ``main`` could catch it) printed a KeyboardInterrupt
traceback. Issue 32: an interrupt while the package itself loaded (before ``main``)
still did; the command now takes Ctrl-C over in the package's first lines. Only the
interpreter's own start, before rubricjudge's first line runs (a few ms, tens on a
busy machine), is out of reach.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.chat_server import ChatServer, Reply


@pytest.mark.parametrize("delay", [0.25, 0.5, 1.0, 2.5])
def test_ctrl_c_early_or_late_is_one_clean_line(
    delay: float, tmp_path: Path, chat_server: ChatServer
) -> None:
    chat_server.handler = lambda body: Reply.hang_up()
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: polite\n  weight: 1\n  requirement: Is polite\n", "utf-8")
    answers = tmp_path / "in.jsonl"
    answers.write_text('{"submission": "hi"}\n', "utf-8")
    script = Path(sys.executable).with_name("rubricjudge")
    proc = subprocess.Popen(
        [str(script), "grade", str(rubric), str(answers), "--judge", "openai/m"]
        + ["--base-url", chat_server.base_url, "--no-cache"],
        env={**os.environ, "OPENAI_API_KEY": "k"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # as from a terminal: a shell starting pytest in the background (`pytest &`) leaves
        # SIGINT ignored, and a child would inherit that and never see the Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "rubricjudge: interrupted"


# A script laid out as pip writes the `rubricjudge` console script, with an import hook
# that sends the process SIGINT when the named module is about to load: the interrupt
# lands at an exact moment of the start, which a timer on a busy machine cannot hit.
SCRIPT = """\
import os, signal, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
from rubricjudge._cli.main import main
if __name__ == '__main__':
    sys.exit(main())
"""


@pytest.mark.parametrize(
    "module",
    [
        "rubricjudge._lazy",  # while the package itself loads (issue 32: a traceback)
        "rubricjudge._version",
        "rubricjudge._cli",
        "rubricjudge._cli.main",
        "rubricjudge._cli.cmd_grade",  # main() has started: caught there, as before
    ],
)
def test_ctrl_c_while_the_command_loads_is_one_clean_line(module: str, tmp_path: Path) -> None:
    script = tmp_path / "rubricjudge"
    script.write_text(SCRIPT.format(module=module), "utf-8")
    proc = subprocess.run(
        [sys.executable, str(script), "--help"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "rubricjudge: interrupted"


def test_a_script_of_another_name_keeps_python_s_own_ctrl_c(tmp_path: Path) -> None:
    # importing the library does not take Ctrl-C over: only the command does
    script = tmp_path / "mine.py"
    script.write_text(SCRIPT.format(module="rubricjudge._version"), "utf-8")
    proc = subprocess.run(
        [sys.executable, str(script), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert "KeyboardInterrupt" in proc.stderr and proc.returncode != 130
