"""Rubrics from data: draft a rubric from a task, refine one from human labels."""
