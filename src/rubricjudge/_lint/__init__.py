"""Checking a rubric before it grades anything, and the meta-rubric that grades rubrics."""
