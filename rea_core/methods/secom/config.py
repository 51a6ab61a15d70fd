"""SeCom's method settings: how it segments, denoises and retrieves."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import check_choice

SECOM_SEGMENTERS = ("llm", "embedding")
SECOM_COMPRESSORS = ("auto", "llmlingua2", "ppl", "none")
SECOM_RETRIEVERS = ("bm25", "dense")


@dataclass(frozen=True)
class SeComConfig:
    """SeCom's settings (SeCom paper, ICLR 2025): segmentation, denoising, retrieval."""

    segmenter: str = field(
        default="llm",
        metadata={
            "help": "'llm' (zero-shot on the backbone, embedding fallback "
            "when its output does not parse) or 'embedding'"
        },
    )
    segment_window: int = field(default=6, metadata={"help": "unsegmented turns that trigger a segmentation pass"})
    boundary_threshold: float = field(
        default=0.15,
        metadata={
            "help": "embedding segmenter: a turn whose cosine to its "
            "segment's mean falls below this starts a new segment"
        },
    )
    compressor: str = field(
        default="auto",
        metadata={
            "help": "denoising: 'auto' (LLMLingua-2 where its model loads, else "
            "perplexity LLMLingua on the backbone), 'llmlingua2', 'ppl' or 'none'"
        },
    )
    compress_rate: float = field(
        default=0.75,
        metadata={"help": "share of tokens a memory unit keeps after compression (LLMLingua's rate; paper: 75%)"},
    )
    retriever: str = field(
        default="bm25",
        metadata={"help": "retriever over compressed segments: 'bm25' (bm25s) or 'dense' (the embedder)"},
    )
    top_k: int = field(default=3, metadata={"help": "segments retrieved per query (N)"})
    cache_entries: int = field(
        default=512,
        metadata={"help": "dense-retriever vectors cached per session, least recently used dropped past it"},
    )

    def __post_init__(self) -> None:
        check_choice("secom.segmenter", self.segmenter, SECOM_SEGMENTERS)
        check_choice("secom.compressor", self.compressor, SECOM_COMPRESSORS)
        check_choice("secom.retriever", self.retriever, SECOM_RETRIEVERS)
        if not 0.0 < self.compress_rate <= 1.0:
            raise ValueError(f"secom.compress_rate must lie in (0, 1], got {self.compress_rate}")
        if not -1.0 <= self.boundary_threshold <= 1.0:
            raise ValueError(f"secom.boundary_threshold must lie in [-1, 1], got {self.boundary_threshold}")
        if self.segment_window < 2 or self.top_k < 1 or self.cache_entries < 1:
            raise ValueError("secom.segment_window >= 2, secom.top_k >= 1 and secom.cache_entries >= 1 are required")
