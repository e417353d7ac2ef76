"""Graders: per-criterion, one-shot, holistic and pairwise grading, group ranking, ensembles."""
