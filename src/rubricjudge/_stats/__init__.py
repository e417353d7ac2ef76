"""Statistics over many reports: flip tallies and pairwise agreement."""
