"""Dual-LoRA latent codec (REA paper, sections 3.2, 3.5, A.1): one frozen backbone, two adapters.

* **compress** adapter: reads a reply's token embeddings followed by ``n_latent`` learned
  compression-token embeddings; the backbone's last hidden states at those positions, passed
  through a small projector, are the reply's latent vectors (the ICAE / gist-token recipe).
* **generate** adapter: reads a hybrid ``inputs_embeds`` sequence: chat-templated text with, for
  every compressed exchange, ``<latent>`` + its latent vectors + ``</latent>`` where the reply
  text would be.

Last-layer hidden states are post-norm (norms near 45 on SmolLM2 against about 3 for token
embeddings), so the projector first rescales each latent to the token-embedding RMS with a learned
per-dimension gain (``rescale``), optionally followed by an identity-initialized linear map
(``linear``).

The codec shares the generator's model object: peft injects LoRA layers into it, so the codec
declares itself to the generator (``HFGenerator.attach_adapters``) and every text-only call
(vanilla, the recognizer) runs with its adapters disabled. A lock shared with the generator
serializes model calls, so a background compression never switches adapters under a running
generation.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from ..backends.base import Message
from ..reconstruction import SLOT as _SLOT  # the prompt format of a latent reply
from ..reconstruction import latent_message
from ..types import Generation

if TYPE_CHECKING:
    from .background import BackgroundCompressor

log = logging.getLogger(__name__)

COMPRESS, GENERATE = "compress", "generate"
RECONSTRUCT_PROMPT = "Repeat the text inside the latent block word for word."


@dataclass(frozen=True)
class CodecSpec:
    """Shape of a codec; saved with its weights and checked on load."""

    backbone: str
    hidden_size: int
    n_latent: int = 8
    lora_r: int = 8
    lora_alpha: int = 16
    target_modules: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
    projector: str = "rescale"  # "rescale" or "linear"
    # hidden layer the latents are read from (None: the last, post-norm; the retention objective tries a middle one)
    read_layer: int | None = None
    center: bool = False  # subtract the mean of a window's latents before the projector (removes the shared direction)
    # compression-token inputs: "random" learned rows, or "content" (each slice's mean embedding + a learned offset)
    token_init: str = "random"
    window_tokens: int = 256  # reply tokens read per compressor pass
    max_chunks: int = 4  # a longer reply is compressed in up to this many windows, then truncated

    def __post_init__(self) -> None:
        if self.n_latent < 1 or self.window_tokens < 1 or self.max_chunks < 1:
            raise ValueError("n_latent, window_tokens and max_chunks must be positive")
        if self.projector not in ("rescale", "linear"):
            raise ValueError(f"projector must be 'rescale' or 'linear', got {self.projector!r}")
        if self.token_init not in ("random", "content"):
            raise ValueError(f"token_init must be 'random' or 'content', got {self.token_init!r}")
        object.__setattr__(self, "target_modules", tuple(self.target_modules))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["target_modules"] = list(self.target_modules)
        return d


@dataclass
class HybridInput:
    """A hybrid prompt as input embeddings, with where each latent block sits."""

    embeds: object  # torch (1, T, hidden)
    latent_spans: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of each block's latent rows

    @property
    def length(self) -> int:
        return int(self.embeds.shape[1])


class DualLoRACodec:
    """Compression and generation adapters on the generator's backbone (``HFGenerator``)."""

    def __init__(
        self,
        generator,
        spec: CodecSpec,
        *,
        seed: int = 0,
        provenance: dict | None = None,
        measurements: dict | None = None,
    ):
        import torch
        from peft import LoraConfig, get_peft_model

        if generator.adapters is not None:
            raise ValueError(
                f"generator '{generator.name}' already carries a latent codec; load the backbone again for another"
            )
        self.generator = generator
        self.spec = spec
        self.provenance: dict = dict(provenance or {})  # how it was trained (codec.json)
        self.measurements: dict | None = measurements  # what each compressed form measured on this backbone (forms.py)
        self._torch = torch
        base = generator.model
        hidden = base.config.hidden_size
        if hidden != spec.hidden_size:
            raise ValueError(f"codec spec hidden size {spec.hidden_size} does not match the backbone's {hidden}")
        for p in base.parameters():
            p.requires_grad_(False)
        lora = dict(
            r=spec.lora_r,
            lora_alpha=spec.lora_alpha,
            lora_dropout=0.0,
            target_modules=list(spec.target_modules),
            bias="none",
        )
        self.peft_model = get_peft_model(base, LoraConfig(**lora), adapter_name=COMPRESS)
        self.peft_model.add_adapter(GENERATE, LoraConfig(**lora))
        device, dtype = generator.device, next(base.parameters()).dtype
        embedding = base.get_input_embeddings().weight
        gen = torch.Generator().manual_seed(seed)
        init_ids = torch.randint(0, embedding.shape[0], (spec.n_latent,), generator=gen)
        if spec.token_init == "content":  # a learned offset on each slice's mean embedding, starting at zero
            self.compression_tokens = torch.nn.Parameter(torch.zeros(spec.n_latent, hidden, device=device))
        else:  # copies of random vocabulary embeddings (ICAE), so their scale matches text
            self.compression_tokens = torch.nn.Parameter(
                embedding.detach()[init_ids.to(embedding.device)].clone().float().to(device)
            )
        self.embed_rms = float(embedding.detach().float().pow(2).mean(-1).sqrt().mean())
        self.gain = torch.nn.Parameter(torch.ones(hidden, device=device))
        self.linear = None
        if spec.projector == "linear":
            self.linear = torch.nn.Linear(hidden, hidden, device=device)
            torch.nn.init.eye_(self.linear.weight)
            torch.nn.init.zeros_(self.linear.bias)
        self.dtype = dtype
        self.lock = generator.lock
        # The background worker writing reply latents, owned here so strategies sharing this codec
        # share its one queue (``background``).
        self._worker: BackgroundCompressor | None = None
        self._worker_mu = threading.Lock()
        generator.attach_adapters(self)  # text-only calls see the plain backbone (``disabled``)
        self.set_trainable(False)

    # -- the generator's adapter host ----------------------------------------------------------

    def disabled(self):
        """Context with both adapters off: the plain backbone (``HFGenerator.plain_backbone``)."""
        return self.peft_model.disable_adapter()

    @contextlib.contextmanager
    def adapter(self, name: str | None):
        """Context running the model under adapter ``name``, or the plain backbone for None."""
        if name is None:
            with self.disabled():
                yield
        else:
            self.use_adapter(name)
            yield

    def background(self) -> "BackgroundCompressor":
        """The one background worker of this codec (one thread: writes never run side by side), made on first use."""
        from .background import BackgroundCompressor

        with self._worker_mu:
            if self._worker is None:
                self._worker = BackgroundCompressor(self)
            return self._worker

    # -- parameters ---------------------------------------------------------------------------

    def lora_parameters(self) -> Iterator:
        return (p for n, p in self.peft_model.named_parameters() if "lora_" in n)

    def extra_parameters(self) -> list:
        """Parameters outside the LoRA layers: compression tokens and the projector."""
        params = [self.compression_tokens, self.gain]
        if self.linear is not None:
            params += list(self.linear.parameters())
        return params

    def trainable_parameters(self) -> list:
        return list(self.lora_parameters()) + self.extra_parameters()

    def set_trainable(self, on: bool) -> None:
        """Both adapters and the extras trainable (or frozen). peft's ``set_adapter`` freezes the
        inactive adapter, so this is re-applied after every switch while training."""
        self._training = on
        for p in self.trainable_parameters():
            p.requires_grad_(on)
        self.peft_model.train(on)

    def use_adapter(self, name: str) -> None:
        """Make ``name`` the active adapter, keeping both trainable while training."""
        self.peft_model.base_model.set_adapter(name)
        if self._training:
            for p in self.lora_parameters():
                p.requires_grad_(True)

    def state_dict(self) -> dict:
        """Every trained tensor: both adapters' LoRA weights, the compression tokens, the projector."""
        state = {n: p.detach() for n, p in self.peft_model.named_parameters() if "lora_" in n}
        state["rea.compression_tokens"] = self.compression_tokens.detach()
        state["rea.gain"] = self.gain.detach()
        if self.linear is not None:
            state["rea.linear.weight"] = self.linear.weight.detach()
            state["rea.linear.bias"] = self.linear.bias.detach()
        return state

    def load_state_dict(self, state: dict) -> None:
        torch = self._torch
        own = dict(self.peft_model.named_parameters())
        missing = [n for n in own if "lora_" in n and n not in state]
        if missing:
            raise ValueError(f"adapter file lacks {len(missing)} LoRA tensors (e.g. {missing[0]})")
        with torch.no_grad():
            for name, value in state.items():
                target = (
                    {
                        "rea.compression_tokens": self.compression_tokens,
                        "rea.gain": self.gain,
                        "rea.linear.weight": self.linear.weight if self.linear is not None else None,
                        "rea.linear.bias": self.linear.bias if self.linear is not None else None,
                    }.get(name)
                    if name.startswith("rea.")
                    else own.get(name)
                )
                if target is None:
                    raise ValueError(f"adapter file has an unexpected tensor {name!r}")
                if tuple(target.shape) != tuple(value.shape):
                    raise ValueError(
                        f"tensor {name!r} has shape {tuple(value.shape)}, the codec expects {tuple(target.shape)}"
                    )
                target.copy_(value.to(target.device, target.dtype))

    # -- compression --------------------------------------------------------------------------

    def reply_windows(self, text: str) -> tuple[list[list[int]], int]:
        """Token windows a reply is compressed in, and how many tokens were cut beyond the last one."""
        ids = self.generator.tokenizer(text, add_special_tokens=False)["input_ids"] or [
            self.generator.tokenizer.eos_token_id
        ]
        w, cap = self.spec.window_tokens, self.spec.window_tokens * self.spec.max_chunks
        cut = max(0, len(ids) - cap)
        ids = ids[:cap]
        return [ids[i : i + w] for i in range(0, len(ids), w)], cut

    def _project(self, hidden):
        h = hidden.float()  # (n_latent, hidden)
        if self.spec.center:  # the window's shared direction carries no per-latent content
            h = h - h.mean(0, keepdim=True)
        h = h / h.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt() * self.embed_rms * self.gain
        if self.linear is not None:
            h = self.linear(h)
        return h

    def compress_ids(self, ids: Sequence[int]):
        """(n_latent, hidden) latents of one token window, under the compress adapter (with grad when training)."""
        torch = self._torch
        text = self.generator.embed_ids(ids).float()  # (1, T, hidden)
        tokens = self.compression_tokens
        if self.spec.token_init == "content":
            tokens = tokens + slice_means(text[0], self.spec.n_latent)
        inputs = torch.cat([text, tokens[None]], dim=1).to(self.dtype)  # (1, T + n_latent, hidden)
        self.use_adapter(COMPRESS)
        if self.spec.read_layer is None:
            hidden = self.generator.model.base_model(inputs_embeds=inputs).last_hidden_state  # post-norm, no LM head
        else:
            hidden = self.generator.model.base_model(inputs_embeds=inputs, output_hidden_states=True).hidden_states[
                self.spec.read_layer
            ]
        return self._project(hidden[0, -self.spec.n_latent :])

    def compress_windows(self, windows: Sequence[Sequence[int]]):
        torch = self._torch
        return torch.cat([self.compress_ids(w) for w in windows], dim=0)

    def compress(self, text: str) -> np.ndarray:
        """Latents of a reply as float32 (n_latent * windows, hidden); warns when a reply is cut."""
        windows, cut = self.reply_windows(text)
        if cut:
            log.warning(
                "Reply of %d tokens is longer than the compressor's %d "
                "windows of %d tokens; its last %d tokens are not compressed",
                sum(map(len, windows)) + cut,
                self.spec.max_chunks,
                self.spec.window_tokens,
                cut,
            )
        with self.lock, self._torch.inference_mode():
            return self.compress_windows(windows).float().cpu().numpy()

    # -- hybrid input and generation ------------------------------------------------------------

    def _piece_ids(
        self, messages: Sequence[Message], n_blocks: int, *, add_generation_prompt: bool = True
    ) -> list[list[int]]:
        """Token ids of the templated text around the latent slots: one more piece than slots."""
        return self._split_ids(
            self.generator.template_text(messages, add_generation_prompt=add_generation_prompt), n_blocks
        )

    def _split_ids(self, text: str, n_blocks: int) -> list[list[int]]:
        pieces = text.split(_SLOT)
        if len(pieces) - 1 != n_blocks:
            raise ValueError(f"{len(pieces) - 1} latent slots in the prompt but {n_blocks} latent blocks")
        tok = self.generator.tokenizer
        return [tok(piece, add_special_tokens=False)["input_ids"] if piece else [] for piece in pieces]

    def hybrid_input(
        self,
        messages: Sequence[Message],
        latent_blocks: Sequence,
        *,
        add_generation_prompt: bool = True,
        suffix_ids: Sequence[int] = (),
    ) -> HybridInput:
        """Embed templated ``messages`` whose latent slots (from ``latent_message``) take ``latent_blocks`` in order.

        ``latent_blocks`` are (n, hidden) tensors or arrays, one per slot. ``suffix_ids`` are
        appended after the prompt (training targets).
        """
        text = self.generator.template_text(messages, add_generation_prompt=add_generation_prompt)
        return self.hybrid_input_text(text, latent_blocks, suffix_ids=suffix_ids)

    def hybrid_input_text(self, text: str, latent_blocks: Sequence, *, suffix_ids: Sequence[int] = ()) -> HybridInput:
        """Embed already templated ``text`` whose latent slots take ``latent_blocks`` in order."""
        torch = self._torch
        pieces = self._split_ids(text, len(latent_blocks))
        pieces[-1] = list(pieces[-1]) + list(suffix_ids)
        device = self.generator.device
        parts, spans, pos = [], [], 0
        for i, ids in enumerate(pieces):
            if ids:
                parts.append(self.generator.embed_ids(ids).to(self.dtype))
                pos += len(ids)
            if i < len(latent_blocks):
                block = latent_blocks[i]
                block = torch.as_tensor(block, device=device) if not torch.is_tensor(block) else block.to(device)
                parts.append(block[None].to(self.dtype))
                spans.append((pos, pos + block.shape[0]))
                pos += block.shape[0]
        return HybridInput(embeds=torch.cat(parts, dim=1), latent_spans=spans)

    def hybrid_length(self, messages: Sequence[Message], latent_blocks: Sequence) -> int:
        """Input positions of the hybrid prompt: text tokens plus latent vectors (nothing embedded)."""
        return sum(map(len, self._piece_ids(messages, len(latent_blocks)))) + sum(len(b) for b in latent_blocks)

    def generate(
        self,
        messages: Sequence[Message],
        latent_blocks: Sequence,
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        adapter: str | None = GENERATE,
    ) -> tuple[Generation, HybridInput]:
        """Greedy reply from a hybrid prompt under ``adapter`` (the generate adapter; None: the plain backbone)."""
        import time

        start = time.perf_counter()
        with self.lock, self._torch.inference_mode():
            hybrid = self.hybrid_input(messages, latent_blocks)
            embeds, truncated = hybrid.embeds, 0
            if max_prompt_tokens is not None and hybrid.length > max_prompt_tokens:
                truncated = hybrid.length - max_prompt_tokens
                embeds = embeds[:, truncated:]
            with self.adapter(adapter):
                text, new_tokens = self.generator.generate_from_embeds(embeds, max_new_tokens=max_new_tokens)
        gen = Generation(
            text=text,
            prompt_tokens=hybrid.length - truncated,
            new_tokens=new_tokens,
            wall_s=time.perf_counter() - start,
            truncated_tokens=truncated,
        )
        return gen, hybrid

    def stream(
        self,
        messages: Sequence[Message],
        latent_blocks: Sequence,
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        cache_key: str | None = None,
        adapter: str | None = GENERATE,
        budget_s: float | None = None,
        rules: Sequence = (),
    ) -> Iterator:
        """``generate`` streamed (text pieces, then the ``Generation``), with KV prefix reuse under ``cache_key``;
        ``rules``: output rules (``types.OutputRule``) the reply keeps.

        Each latent row is named by its block's content hash for prefix matching, so a stable
        prefix of raw and latent exchanges is reused like text. Every forward pass sets the
        adapter (``adapter``; None: the plain backbone), so a background compression between tokens
        cannot leave another active.
        """
        import hashlib
        import time

        start = time.perf_counter()
        pieces = self._piece_ids(messages, len(latent_blocks))
        items: list = []
        for i, ids in enumerate(pieces):
            items += ids
            if i < len(latent_blocks):
                block = np.asarray(
                    latent_blocks[i].detach().float().cpu()
                    if hasattr(latent_blocks[i], "detach")
                    else latent_blocks[i],
                    dtype=np.float32,
                )
                digest = hashlib.sha1(block.tobytes()).hexdigest()[:16]
                items += [f"latent:{digest}:{r}" for r in range(block.shape[0])]
        truncated = max(0, len(items) - max_prompt_tokens) if max_prompt_tokens is not None else 0

        def embed():
            with self.lock, self._torch.inference_mode():
                return self.hybrid_input(messages, latent_blocks).embeds[:, truncated:]  # (1, T, hidden)

        yield from self.generator.stream_embeds(
            embed,
            tuple(items[truncated:]),
            max_new_tokens=max_new_tokens,
            cache_key=cache_key,
            mode=f"{adapter}:{id(self)}",
            guard=lambda: self.adapter(adapter),
            start=start,
            truncated=truncated,
            budget_s=budget_s,
            rules=rules,
        )

    def target_nll(
        self,
        messages: Sequence[Message],
        latent_blocks: Sequence,
        target: str,
        *,
        max_target_tokens: int = 256,
        adapter: str | None = GENERATE,
    ) -> tuple[float, int, int]:
        """Mean per-token NLL of ``target`` as the assistant's reply; returns (nll, target tokens, prompt length).

        ``adapter=None`` measures the plain backbone (text-only prompts).
        """
        torch = self._torch
        tok = self.generator.tokenizer
        target_ids = tok(target, add_special_tokens=False)["input_ids"][:max_target_tokens]
        if not target_ids:
            raise ValueError("empty target")
        n = len(target_ids)
        with self.lock, torch.inference_mode():
            hybrid = self.hybrid_input(messages, latent_blocks, suffix_ids=target_ids)
            with self.adapter(adapter):
                logits = self.generator.model(inputs_embeds=hybrid.embeds, logits_to_keep=n + 1).logits[0]
        pred = logits[:-1].float()
        nll = torch.nn.functional.cross_entropy(pred, torch.tensor(target_ids, device=pred.device))
        return float(nll), n, hybrid.length - n

    def reconstruct(self, latents, *, max_new_tokens: int = 128) -> str:
        """Decode text back from latents (autoencoding), to see what they keep (ROUGE-L in the evaluation)."""
        messages = [{"role": "user", "content": latent_message() + "\n" + RECONSTRUCT_PROMPT}]
        gen, _ = self.generate(messages, [latents], max_new_tokens=max_new_tokens)
        return gen.text


def slice_means(embeds, n: int):
    """(n, hidden) mean embedding of each of ``n`` contiguous, near-equal slices of (T, hidden) ``embeds``.

    Why: a latent that starts from the content it stands for (its n-th of the reply) does not
    collapse onto one shared direction. A slice left empty (T < n) takes the whole text's mean.
    """
    import torch

    T = embeds.shape[0]
    if T == 0:
        raise ValueError("cannot pool an empty text")
    bounds = [round(i * T / n) for i in range(n + 1)]
    whole = embeds.mean(0)
    return torch.stack([embeds[a:b].mean(0) if b > a else whole for a, b in zip(bounds, bounds[1:])])  # (n, hidden)
