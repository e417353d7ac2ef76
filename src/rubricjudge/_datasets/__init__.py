"""Datasets of submissions with human labels: items, files, splits, bundled examples."""
