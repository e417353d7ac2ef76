"""Agreement between judges and human labels, and the gate between two runs."""
