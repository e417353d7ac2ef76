"""The labelling page (``rubricjudge label``): people label answers; the judge says which first."""
