"""A run as one self-contained HTML page (``rubricjudge report``)."""

from ._data import RunData, load_run
from ._page import render_page
from ._write import write_report

__all__ = ["RunData", "load_run", "render_page", "write_report"]
