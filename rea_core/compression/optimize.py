"""Optimized latents: fit a reply's latent vectors to the reply itself, backbone frozen.

The shipped encoder was trained for 136 CPU steps and its latents carry nothing the generator uses
(BENCHMARKS, "Latent compression"). Capacity is not the limit: optimizing input vectors per sample
lets one vector make a 160M model decode ~70 tokens ("cramming", Kuratov et al. 2025,
yurakuratov/hidden_capacity: Adam, lr 1e-2). So here, after each reply, its ``n_latent`` vectors
are fitted directly:

* each starts from the mean input embedding of its n-th of the reply (its content);
* the loss is the NLL of the reply (and the end of turn) given the latents, in one of two layouts:
  ``reply`` reads the reply right after the latent block
  (``[system][user] assistant: <latent> v_1..v_n </latent> reply``); ``recall`` closes the latent
  turn as REA's prompts do and reads the reply one turn later
  (``... </latent><end of turn> user: RECALL_REQUEST assistant: reply``), as a later turn reads
  them; ``recall`` measured worse than ``reply`` (BENCHMARKS), so ``reply`` is the default;
* the backbone is frozen; the generation adapter is optional (``adapter=None``: plain backbone, and
  generation from these latents must then use the plain backbone too);
* a fixed step budget, stopping early once teacher-forced token accuracy reaches a target, and at
  once (best latents so far) when the background worker is asked to stop.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from ..memory.episodic import Exchange
from ..reconstruction import LATENT_CLOSE, LATENT_OPEN, SLOT
from .background import LATENT_META, latents_by
from .codec import GENERATE, DualLoRACodec, slice_means

ADAPTERS = ("generate", "none")
LAYOUTS = ("reply", "recall")
RECALL_REQUEST = "Repeat your previous answer word for word."


@dataclass(frozen=True)
class OptimizeConfig:
    """Budget and settings of per-reply latent optimization: the codec's fitting settings, which REA's
    ``latent_fit`` holds when its ``codec_mode`` is ``optimize``."""

    max_steps: int = field(
        default=60,
        metadata={
            "env": "REA_OPTIMIZE_STEPS",
            "help": "Adam steps per reply at most (each is one forward and backward pass); "
            "60 measured best of 0, 30, 60, 120 (BENCHMARKS)",
        },
    )
    lr: float = field(default=1e-2, metadata={"help": "Adam learning rate (hidden_capacity's 1e-2)"})
    target_accuracy: float = field(
        default=1.0, metadata={"help": "stop once this share of reply tokens is the argmax after the latents"}
    )
    max_reply_tokens: int = field(
        default=96, metadata={"help": "reply tokens fitted (the shipped codec's window); later ones are cut"}
    )
    adapter: str = field(
        default="generate",
        metadata={"help": "'generate': fit and generate under the generation adapter; 'none': the plain backbone"},
    )
    system_prompt: str = field(
        default="You are a helpful assistant.", metadata={"help": "system message before the user text while fitting"}
    )
    layout: str = field(
        default="reply",
        metadata={"help": "'reply': the reply right after the latents; 'recall': one turn later (module docstring)"},
    )

    def __post_init__(self) -> None:
        if self.max_steps < 0 or self.max_reply_tokens < 1 or not self.lr > 0:
            raise ValueError("max_steps must be >= 0, max_reply_tokens >= 1 and lr > 0")
        if not 0.0 < self.target_accuracy <= 1.0:
            raise ValueError(f"target_accuracy must lie in (0, 1], got {self.target_accuracy}")
        if self.adapter not in ADAPTERS:
            raise ValueError(f"adapter must be one of {', '.join(ADAPTERS)}; got {self.adapter!r}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {self.layout!r}")

    @property
    def adapter_name(self) -> str | None:
        """The codec adapter to run under (None: plain backbone)."""
        return GENERATE if self.adapter == "generate" else None

    @property
    def key(self) -> str:
        """Writer key saved with the latents: latents fitted under another adapter or layout are not
        interchangeable."""
        return f"optimize-{self.adapter}" + ("" if self.layout == "reply" else f"-{self.layout}")


@dataclass(frozen=True)
class OptimizedLatents:
    """The fitted latents and what the fit cost."""

    latents: np.ndarray  # (n_latent, hidden) float32
    steps: int
    accuracy: float  # teacher-forced token accuracy of the returned latents
    nll: float  # mean NLL of the reply tokens given the returned latents
    seconds: float
    stopped_by: str  # "accuracy", "budget" or "interrupted"

    def record(self, key: str) -> dict:
        return {
            "by": key,
            "steps": self.steps,
            "accuracy": round(self.accuracy, 4),
            "nll": round(self.nll, 4),
            "seconds": round(self.seconds, 3),
            "stopped_by": self.stopped_by,
        }


def _messages_before_reply(user: str, cfg: OptimizeConfig) -> list[dict]:
    """The messages up to the reply's turn: the fitting system prompt (if any) and the user text."""
    return ([{"role": "system", "content": cfg.system_prompt}] if cfg.system_prompt else []) + [
        {"role": "user", "content": user}
    ]


def fit_prompt(codec: DualLoRACodec, user: str, cfg: OptimizeConfig) -> str:
    """Templated text of the fitting layout (``cfg.layout``), one latent slot; the reply follows it."""
    messages = _messages_before_reply(user, cfg)
    block = LATENT_OPEN + SLOT + LATENT_CLOSE
    if cfg.layout == "recall":
        recall = messages + [{"role": "assistant", "content": block}, {"role": "user", "content": RECALL_REQUEST}]
        return codec.generator.template_text(recall, add_generation_prompt=True)
    return codec.generator.template_text(messages, add_generation_prompt=True) + block


def reply_target_ids(codec: DualLoRACodec, reply: str, max_tokens: int) -> list[int]:
    tok = codec.generator.tokenizer
    ids = tok(reply, add_special_tokens=False)["input_ids"][:max_tokens]
    if not ids:
        raise ValueError("cannot fit latents to an empty reply")
    return ids + ([tok.eos_token_id] if tok.eos_token_id is not None else [])  # the end of turn, as downstream


def optimize_latents(
    codec: DualLoRACodec, user: str, reply: str, cfg: OptimizeConfig, *, init=None, stop: threading.Event | None = None
) -> OptimizedLatents:
    """Fit ``codec.spec.n_latent`` vectors so the backbone reads ``reply`` after them (see the module docstring).

    ``init``: (n_latent, hidden) latents to continue from (an interrupted fit); default the slice means.
    The generator lock is taken per step, so a generation can run between steps.
    """
    torch = codec._torch
    start = time.perf_counter()
    target = reply_target_ids(codec, reply, cfg.max_reply_tokens)
    n = len(target)
    text = fit_prompt(codec, user, cfg)
    labels = torch.tensor(target, device=codec.generator.device)
    with codec.lock, torch.no_grad():
        if init is None:
            init = slice_means(
                codec.generator.embed_ids(target[:-1] or target)[0].float(), codec.spec.n_latent
            )  # (n_latent, hidden)
        latents = (
            torch.as_tensor(
                np.asarray(init, dtype=np.float32) if not torch.is_tensor(init) else init,
                device=codec.generator.device,
            )
            .float()
            .clone()
            .requires_grad_(True)
        )
    optimizer = torch.optim.Adam([latents], lr=cfg.lr)
    best = (float("inf"), 0.0, latents.detach().clone())
    steps, stopped_by = 0, "budget"

    def evaluate(grad: bool):
        with codec.adapter(cfg.adapter_name):
            hybrid = codec.hybrid_input_text(text, [latents], suffix_ids=target)
            logits = (
                codec.generator.model(inputs_embeds=hybrid.embeds, logits_to_keep=n + 1).logits[0, :-1].float()
            )  # (n, vocab)
        loss = torch.nn.functional.cross_entropy(logits, labels)
        accuracy = float((logits.argmax(-1) == labels).float().mean())
        (g,) = torch.autograd.grad(loss, [latents]) if grad else (None,)
        return float(loss.detach()), accuracy, g

    while True:
        done = steps >= cfg.max_steps or (stop is not None and stop.is_set())
        with codec.lock, torch.enable_grad():
            loss, accuracy, grad = evaluate(grad=not done)
        if loss < best[0]:
            best = (loss, accuracy, latents.detach().clone())
        if accuracy >= cfg.target_accuracy:
            stopped_by = "accuracy"
            break
        if done:
            stopped_by = "budget" if steps >= cfg.max_steps else "interrupted"
            break
        optimizer.zero_grad(set_to_none=True)
        latents.grad = grad
        optimizer.step()
        steps += 1
    loss, accuracy, fitted = best
    return OptimizedLatents(
        fitted.cpu().numpy().astype(np.float32), steps, accuracy, loss, time.perf_counter() - start, stopped_by
    )


def reply_nll(codec: DualLoRACodec, user: str, reply: str, latents, cfg: OptimizeConfig) -> float:
    """Mean NLL of ``reply`` (and the end of turn) in the fitting layout; ``latents=None`` is the
    user-only control: the same prompt without the latent block."""
    torch = codec._torch
    target = reply_target_ids(codec, reply, cfg.max_reply_tokens)
    text = (
        fit_prompt(codec, user, cfg)
        if latents is not None
        else codec.generator.template_text(_messages_before_reply(user, cfg), add_generation_prompt=True)
    )
    with codec.lock, torch.inference_mode():
        hybrid = codec.hybrid_input_text(text, [latents] if latents is not None else [], suffix_ids=target)
        with codec.adapter(cfg.adapter_name):
            logits = (
                codec.generator.model(inputs_embeds=hybrid.embeds, logits_to_keep=len(target) + 1)
                .logits[0, :-1]
                .float()
            )
    return float(torch.nn.functional.cross_entropy(logits, torch.tensor(target, device=logits.device)))


def decode_optimized(
    codec: DualLoRACodec, user: str, latents, cfg: OptimizeConfig, *, max_new_tokens: int = 104
) -> str:
    """Greedy text read back from fitted latents in their fitting layout (reconstruction ROUGE-L)."""
    torch = codec._torch
    with codec.lock, torch.inference_mode():
        hybrid = codec.hybrid_input_text(fit_prompt(codec, user, cfg), [latents])
        with codec.adapter(cfg.adapter_name):
            text, _ = codec.generator.generate_from_embeds(hybrid.embeds, max_new_tokens=max_new_tokens)
    return text


class OptimizeWriter:
    """``LatentWriter`` of optimized latents; an interrupted fit is continued at the next write."""

    def __init__(self, codec: DualLoRACodec, cfg: OptimizeConfig):
        self.codec = codec
        self.cfg = cfg
        self.key = cfg.key

    def needs(self, exchange: Exchange) -> bool:
        record = exchange.meta.get(LATENT_META) or {}
        return latents_by(exchange) != self.key or (
            record.get("stopped_by") == "interrupted" and record.get("steps", 0) < self.cfg.max_steps
        )

    def write(self, exchange: Exchange, stop: threading.Event) -> tuple[np.ndarray, dict]:
        record = exchange.meta.get(LATENT_META) or {}
        resume = latents_by(exchange) == self.key
        budget = self.cfg.max_steps - (record.get("steps", 0) if resume else 0)
        cfg = (
            self.cfg
            if budget == self.cfg.max_steps
            else OptimizeConfig(**{**asdict(self.cfg), "max_steps": max(0, budget)})
        )
        fit = optimize_latents(
            self.codec, exchange.user, exchange.reply, cfg, init=exchange.latents if resume else None, stop=stop
        )
        out = fit.record(self.key)
        if resume:
            out["steps"] += record.get("steps", 0)
            out["seconds"] = round(out["seconds"] + record.get("seconds", 0.0), 3)
        return fit.latents, out
