"""A run as one self-contained HTML page (``rubricjudge report``)."""
