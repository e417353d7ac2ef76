"""What an HTML page (the report, the label page) shows of a submission and its media."""
