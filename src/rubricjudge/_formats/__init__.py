"""Rubric files: the native format and the peers' formats, loaded, checked, converted."""
