"""Fixtures shared by the judges' tests."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.litellm_stand_in import STAND_IN


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    (tmp_path / "litellm.py").write_text(textwrap.dedent(STAND_IN))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "litellm", raising=False)
    import litellm

    yield litellm
    sys.modules.pop("litellm", None)
