"""Thinking-seed retrieval: the search port and its backends (web, local hybrid index).

Entry points: `retrieval.factory.build_default_searcher` (the engine's one constructor),
`retrieval.gather.gather` (query -> sanitised, cited passages) and `retrieval.sanitize.sanitize`.
Nothing is imported here, so importing the package costs nothing; see docs/retrieval.md.
"""
