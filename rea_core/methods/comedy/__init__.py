"""COMEDY (COMEDY paper): one model compresses each session into a compressive memory, no retrieval.

``config.py`` (``COMEDYConfig``), ``strategy.py`` (``ComedyStrategy``), ``memory.py`` (Tasks 1 and 2).
"""
