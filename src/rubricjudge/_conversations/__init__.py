"""What is graded: conversations, their wire formats, images and documents, submissions.

Nothing here knows of rubrics: ``_model`` (criteria, reports, scoring) and this package
sit side by side, and both import only the layers below them.
"""
