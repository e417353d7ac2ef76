"""Ctrl-C at any moment of a command is one line and exit code 130, never a traceback.

Issue 23, N15: an interrupt in the first seconds (while the commands and their
libraries loaded, before ``main`` could catch it) printed a KeyboardInterrupt
traceback. Only the interpreter's own start, before rubricjudge's first line
runs (tens of milliseconds), is out of reach.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chat_server import ChatServer, Reply


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
