"""The scoring server (``rubricjudge serve``): rubrics over HTTP, behind a bearer token."""
