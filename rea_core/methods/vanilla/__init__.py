"""Vanilla full-history chat, the baseline: every exchange raw, left-truncated to the context window.

It has no settings of its own: only the shared ``runtime.RuntimeConfig``.
"""
