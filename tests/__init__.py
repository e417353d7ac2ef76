"""rubricjudge's tests: tests/<package>/ for each package of src/rubricjudge, helpers in support/.

Cross-cutting checks (docs, start-up time, the public API, reliability probes) stay here
at the top. How the files import each other is said in conftest.py.
"""
