"""REA (REA paper): Instructional Memory, Episodic Memory and Heuristic Context Retrieval.

``config.py`` holds its settings (``REAConfig``), ``strategy.py`` the strategy (``REAStrategy``). Nothing is
imported here, so reading the settings never loads the strategy and its models.
"""
