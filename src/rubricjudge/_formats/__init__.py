from ._detect import FORMATS, FormatName, detect_format
from ._dump import WRITABLE, convert_rubric, dump_data, dump_file, dump_text
from ._load import Checked, check_data, load_data, load_file, load_rubrics, load_text, validate_data
from ._native import MARKER
from ._schema import rubric_json_schema

__all__ = [
    "FORMATS",
    "MARKER",
    "WRITABLE",
    "Checked",
    "FormatName",
    "check_data",
    "convert_rubric",
    "detect_format",
    "dump_data",
    "dump_file",
    "dump_text",
    "load_data",
    "load_file",
    "load_rubrics",
    "load_text",
    "rubric_json_schema",
    "validate_data",
]
