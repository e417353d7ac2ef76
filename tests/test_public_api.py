"""The public surface is exactly what ``rubricjudge.__all__`` lists."""

import inspect
import subprocess
import sys

import rubricjudge


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in dir(rubricjudge) if not name.startswith("_")}
    # submodules show up as attributes once imported; they are not public names
    public -= {"annotations", "importlib", "Any", "TYPE_CHECKING"} | {
        n for n in public if type(getattr(rubricjudge, n)) is type(rubricjudge)
    }
    assert rubricjudge.__all__ == sorted(rubricjudge.__all__)
    assert set(rubricjudge.__all__) == public


def test_every_exported_name_resolves() -> None:
    for name in rubricjudge.__all__:
        assert getattr(rubricjudge, name) is not None, name


def test_every_public_name_has_a_docstring() -> None:
    for name in rubricjudge.__all__:
        obj = getattr(rubricjudge, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), name


def test_import_loads_no_optional_backend() -> None:
    code = (
        "import sys, rubricjudge; "
        "bad = [m for m in ('openai', 'anthropic', 'litellm', 'llama_cpp', 'sacrebleu', "
        "'starlette', 'psycopg', 'numpy', 'jinja2') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
