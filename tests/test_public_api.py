"""The public surface is exactly what ``rubricate.__all__`` lists."""

import inspect
import subprocess
import sys

import rubricate


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in vars(rubricate) if not name.startswith("_")}
    assert rubricate.__all__ == sorted(rubricate.__all__)
    assert set(rubricate.__all__) == public


def test_every_public_name_has_a_docstring() -> None:
    for name in rubricate.__all__:
        obj = getattr(rubricate, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), name


def test_import_loads_no_optional_backend() -> None:
    code = (
        "import sys, rubricate; "
        "bad = [m for m in ('openai', 'anthropic', 'litellm', 'llama_cpp', 'sacrebleu', "
        "'starlette', 'psycopg') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
