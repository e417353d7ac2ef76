"""Datasets of submissions with human labels: items, files, splits, bundled examples."""

from ._bundled import example_datasets, load_example_dataset
from ._dataset import DataItem, GroundTruth, normalize_ground_truth
from ._io import RubricDataset

__all__ = [
    "DataItem",
    "GroundTruth",
    "RubricDataset",
    "example_datasets",
    "load_example_dataset",
    "normalize_ground_truth",
]
