"""SeCom (SeCom paper, ICLR 2025): segment-level memory, denoised by compression, retrieved top-N.

``config.py`` (``SeComConfig``), ``strategy.py`` (``SeComStrategy``) and its parts: ``segmenter.py``,
``compressor.py`` (LLMLingua), ``retriever.py`` (BM25 or dense top-N).
"""
