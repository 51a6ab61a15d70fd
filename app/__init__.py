"""REA Studio's Gradio app: a thin client of ``rea_core`` (and the ``annotations`` store)."""
