"""Output files (issue 23, N1, N14, N16): nothing the user had at ``-o`` is lost.

A run that grades nothing keeps the old file; a symlink stays a link to the file
replaced; the mode of the file replaced is kept; a FIFO or a pipe (``-o >(cmd)``)
is written to as data comes; a temporary file left by a killed run is removed by
the next one, never one a live writer holds.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rubricjudge._cli.main import main
from rubricjudge._errors import ConfigError
from rubricjudge._outfile import OutputFile, write_output
from tests.support.chat_server import ChatServer, Reply

RUBRIC = "- name: polite\n  weight: 1\n  requirement: Is polite\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    answers = tmp_path / "in.jsonl"
    answers.write_text('{"submission": "hi"}\n{"submission": "yo"}\n', encoding="utf-8")
    return rubric, answers


def grade(rubric: Path, answers: Path, out: str | Path, *extra: str) -> int:
    return main(["grade", str(rubric), str(answers), "--judge", "fake", "-o", str(out), *extra])


def test_a_run_that_grades_nothing_keeps_the_old_output(
    files: tuple[Path, Path],
    tmp_path: Path,
    chat_server: ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rubric, answers = files
    out = tmp_path / "out.jsonl"
    out.write_text("what the user had\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    chat_server.script(*[Reply.text("no verdict here")] * 20)
    code = main(
        ["grade", str(rubric), str(answers), "-o", str(out), "--judge", "openai/m"]
        + ["--base-url", chat_server.base_url, "--no-cache"]
    )
    assert code == 1
    assert out.read_text(encoding="utf-8") == "what the user had\n"
    assert "out.jsonl was left as it was" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_symlink_stays_a_link_and_the_mode_is_kept(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    rubric, answers = files
    real = tmp_path / "data" / "real.jsonl"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    os.chmod(real, 0o600)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert grade(rubric, answers, link) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o600  # a private file stays private
    assert len(real.read_text(encoding="utf-8").splitlines()) == 2
    # a new file gets what open() would give it: 0666 minus the umask
    umask = os.umask(0o027)
    try:
        assert grade(rubric, answers, tmp_path / "new.jsonl") == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o640


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")
    write_output(link, "{}\n")
    assert link.is_symlink() and (tmp_path / "target.json").read_text() == "{}\n"


def test_a_fifo_is_written_to_not_replaced(files: tuple[Path, Path], tmp_path: Path) -> None:
    rubric, answers = files
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "to-pipe"  # as -o /dev/stdout is a link to a pipe
    link.symlink_to(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert grade(rubric, answers, link) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(fifo.stat().st_mode) and link.is_symlink()
    assert [json.loads(x)["id"] for x in got[0].decode().splitlines()] == ["1", "2"]


def test_process_substitution_is_written_to(files: tuple[Path, Path]) -> None:
    # -o >(cmd) hands rubricjudge /dev/fd/N, a link to a pipe; it was a traceback
    rubric, answers = files
    r, w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rubricjudge._cli.main", "grade", str(rubric), str(answers)]
        + ["--judge", "fake", "-o", f"/dev/fd/{w}"],
        pass_fds=(w,),
        stderr=subprocess.PIPE,
    )
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err
    assert len(data.decode().splitlines()) == 2


def test_a_killed_runs_temporary_file_is_removed_by_the_next(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    rubric, answers = files
    out = tmp_path / "out.jsonl"
    stale = tmp_path / ".out.jsonl.abc123.partial"  # what a SIGKILLed run leaves
    stale.write_text('{"id": "1"}\n', encoding="utf-8")
    live = tmp_path / ".out.jsonl.live99.partial"  # another run, still writing
    live.write_text("", encoding="utf-8")
    other = tmp_path / ".other.jsonl.abc.partial"  # another target's: not ours to judge
    other.write_text("", encoding="utf-8")
    with live.open("a") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        assert grade(rubric, answers, out) == 0
        assert not stale.exists()
        assert live.exists() and other.exists()
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2


def test_an_output_file_that_is_not_committed_leaves_the_target(tmp_path: Path) -> None:
    target = tmp_path / "calibration.json"
    target.write_text("old", encoding="utf-8")
    with OutputFile(target, flag="-o") as out:
        out.stream.write("half")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]
    with pytest.raises(ConfigError, match=r"-o .*: is a directory"):
        OutputFile(tmp_path, flag="-o")
    with pytest.raises(ConfigError, match=r"-o .*: the directory .*nowhere.* does not exist"):
        OutputFile(tmp_path / "nowhere" / "x.json", flag="-o")
