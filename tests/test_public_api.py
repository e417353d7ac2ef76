"""The public surface is exactly what ``rubricate.__all__`` lists."""

import inspect
import subprocess
import sys

import rubricate


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in dir(rubricate) if not name.startswith("_")}
    # submodules show up as attributes once imported; they are not public names
    public -= {"annotations", "importlib", "Any", "TYPE_CHECKING"} | {
        n for n in public if type(getattr(rubricate, n)) is type(rubricate)
    }
    assert rubricate.__all__ == sorted(rubricate.__all__)
    assert set(rubricate.__all__) == public


def test_every_exported_name_resolves() -> None:
    for name in rubricate.__all__:
        assert getattr(rubricate, name) is not None, name


def test_every_public_name_has_a_docstring() -> None:
    for name in rubricate.__all__:
        obj = getattr(rubricate, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), name


def test_import_loads_no_optional_backend() -> None:
    code = (
        "import sys, rubricate; "
        "bad = [m for m in ('openai', 'anthropic', 'litellm', 'llama_cpp', 'sacrebleu', "
        "'starlette', 'psycopg', 'numpy', 'jinja2') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
