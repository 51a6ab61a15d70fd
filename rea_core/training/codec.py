"""End-to-end codec training (REA paper, A.2-A.3): one response-generation loss trains both adapters.

Each example is a session prefix: up to ``history_turns`` earlier exchanges, the current query and
the target reply. Each earlier reply enters as latents (probability ``latent_prob``; at least one
per example) or raw text, so the generation adapter learns to read both. The loss on the target
flows back through the latents into the compression adapter and the compression tokens. An
optional autoencoding warm-up (ICAE) mixes in "repeat the latent block" examples early on.

The retention objective (``objective="retention"``) keeps reconstruction in the mix for
the whole run (ICAE's autoencoding + language modelling): a ``reconstruct_share`` of examples asks
the generator to repeat the reply from its latents, so the latents must carry it. With it go
content-initialized memory tokens (``token_init="content"``) and mean-centered latents
(``center``) or a middle layer (``read_layer``). Every ``monitor_every`` steps the run logs the
mean pairwise cosine between latents of different replies and the reconstruction ROUGE-L of a few
fixed replies, so collapse shows early.

Runs are reproducible (fixed seed; example order and forms depend only on it), show progress, save
a checkpoint every ``save_every`` optimizer steps, and resume from the last one.
"""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Sequence

from ..compression.artifacts import save_codec
from ..compression.codec import GENERATE, RECONSTRUCT_PROMPT, CodecSpec, DualLoRACodec, latent_message
from ..evals.report import write_report
from .codec_data import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainConfig:
    lr: float = 1e-5
    batch_size: int = 128  # effective batch: examples per optimizer step (gradient accumulation)
    epochs: float = 2.0
    max_steps: int | None = None  # stop after this many optimizer steps (overrides epochs)
    max_minutes: float | None = None  # stop (and save) when this much wall time has passed
    history_turns: int = 4
    latent_prob: float = 0.75
    autoencode_steps: int = 0  # optimizer steps of autoencoding warm-up at the start
    autoencode_share: float = 0.5  # share of warm-up examples that are autoencoding
    # "generate" (response loss, autoencoding only in the warm-up) or "retention" (reconstruction mixed in throughout)
    objective: str = "generate"
    reconstruct_share: float = 0.5  # retention: share of examples that reconstruct the reply from its latents
    token_init: str = "random"  # compression-token inputs: "random" rows or "content" (slice means + learned offset)
    center: bool = False  # mean-center a window's latents before the projector
    read_layer: int | None = None  # hidden layer the latents are read from (None: last)
    monitor_every: int = 0  # log latent cosine and reconstruction ROUGE-L every this many steps (0: off)
    monitor_replies: int = 3  # fixed replies decoded for that
    max_target_tokens: int = 256
    targets: str = "dataset"  # "dataset" replies or "self" (self-distillation, needs self_reply in the data)
    system_prompt: str = "You are a helpful assistant."
    n_latent: int = 8
    lora_r: int = 8
    projector: str = "rescale"
    window_tokens: int = 256
    max_chunks: int = 4
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    save_every: int = 25
    seed: int = 0

    def run_key(self) -> dict:
        """Settings a resumed run must share with the checkpoint (time and step limits may change)."""
        return {
            k: v
            for k, v in asdict(self).items()
            if k not in ("max_steps", "max_minutes", "save_every", "monitor_every", "monitor_replies")
        }

    def __post_init__(self) -> None:
        if self.objective not in ("generate", "retention"):
            raise ValueError(f"objective must be 'generate' or 'retention', got {self.objective!r}")
        if not 0.0 <= self.reconstruct_share <= 1.0:
            raise ValueError(f"reconstruct_share must lie in [0, 1], got {self.reconstruct_share}")


# the GPU preset is the REA paper's A.2; the CPU preset is sized to finish on a 2-core machine in under 30 minutes.
PRESETS = {
    "gpu": TrainConfig(),
    "cpu": TrainConfig(
        lr=3e-4,
        batch_size=8,
        epochs=1.0,
        max_steps=150,
        max_minutes=25,
        history_turns=1,
        autoencode_steps=25,
        max_target_tokens=48,
        window_tokens=96,
        max_chunks=1,
        save_every=10,
    ),
}
# The retention objective, content-initialized memory tokens, centered latents.
_RETENTION = dict(objective="retention", reconstruct_share=0.5, token_init="content", center=True, monitor_every=10)
PRESETS["retention-cpu"] = replace(PRESETS["cpu"], autoencode_steps=0, **_RETENTION)
PRESETS["retention-gpu"] = replace(
    PRESETS["gpu"],
    lr=1e-4,
    epochs=1.0,
    history_turns=1,
    max_target_tokens=96,
    window_tokens=96,
    max_chunks=1,
    save_every=50,
    **{**_RETENTION, "monitor_every": 25},
)


def preset(name: str, **overrides) -> TrainConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
    known = {f.name for f in fields(TrainConfig)}
    return replace(PRESETS[name], **{k: v for k, v in overrides.items() if v is not None and k in known})


@dataclass(frozen=True)
class Example:
    """One training instance: chat messages with latent slots, the replies behind them, the target."""

    messages: tuple[dict, ...]
    latent_replies: tuple[str, ...]
    target: str
    kind: str  # "generate" or "autoencode"


def target_of(turn: dict, targets: str) -> str:
    return (turn.get("self_reply") or turn["reply"]) if targets == "self" else turn["reply"]


def history_messages(turns: Sequence[dict], forms: Sequence[str]) -> tuple[list[dict], list[str]]:
    """Messages for earlier turns, each reply raw or a latent slot; returns (messages, latent replies)."""
    messages, latent = [], []
    for turn, form in zip(turns, forms):
        messages.append({"role": "user", "content": turn["user"]})
        if form == "latent":
            messages.append({"role": "assistant", "content": latent_message()})
            latent.append(turn["reply"])
        elif form == "raw":
            messages.append({"role": "assistant", "content": turn["reply"]})
    return messages, latent


def make_example(
    session: Session, target_turn: int, cfg: TrainConfig, rng: random.Random, *, autoencode: bool
) -> Example:
    turns = session.turns
    if autoencode:
        reply = turns[rng.randrange(len(turns))]["reply"]
        msgs = ({"role": "user", "content": latent_message() + "\n" + RECONSTRUCT_PROMPT},)
        return Example(msgs, (reply,), reply, "autoencode")
    earlier = turns[max(0, target_turn - cfg.history_turns) : target_turn]
    forms = ["latent" if rng.random() < cfg.latent_prob else "raw" for _ in earlier]
    if "latent" not in forms:
        forms[rng.randrange(len(forms))] = "latent"
    hist, latent = history_messages(earlier, forms)
    system = [{"role": "system", "content": cfg.system_prompt}] if cfg.system_prompt else []
    msgs = tuple(system + hist + [{"role": "user", "content": turns[target_turn]["user"]}])
    return Example(msgs, tuple(latent), target_of(turns[target_turn], cfg.targets), "generate")


def example_plan(sessions: Sequence[Session], cfg: TrainConfig) -> list[tuple[int, int]]:
    """(session, target turn) pairs, shuffled by the seed: the fixed order a run and its resume share."""
    pairs = [(s, t) for s, session in enumerate(sessions) for t in range(1, len(session.turns))]
    random.Random(cfg.seed).shuffle(pairs)
    return pairs


def example_loss(codec: DualLoRACodec, example: Example, *, max_target_tokens: int):
    """Response-generation loss of one example; gradients reach both adapters through the latents."""
    torch = codec._torch
    tok = codec.generator.tokenizer
    ids = tok(example.target, add_special_tokens=False)["input_ids"][:max_target_tokens]
    if tok.eos_token_id is not None:
        ids = ids + [tok.eos_token_id]  # learn to stop, as the chat template's end of turn
    blocks = [codec.compress_windows(codec.reply_windows(r)[0]) for r in example.latent_replies]
    hybrid = codec.hybrid_input(example.messages, blocks, suffix_ids=ids)
    codec.use_adapter(GENERATE)
    logits = codec.generator.model(inputs_embeds=hybrid.embeds, logits_to_keep=len(ids) + 1).logits[0, :-1]
    return torch.nn.functional.cross_entropy(logits.float(), torch.tensor(ids, device=logits.device))


def new_codec(generator, cfg: TrainConfig) -> DualLoRACodec:
    spec = CodecSpec(
        backbone=generator.name,
        hidden_size=generator.model.config.hidden_size,
        n_latent=cfg.n_latent,
        lora_r=cfg.lora_r,
        lora_alpha=2 * cfg.lora_r,
        projector=cfg.projector,
        window_tokens=cfg.window_tokens,
        max_chunks=cfg.max_chunks,
        read_layer=cfg.read_layer,
        center=cfg.center,
        token_init=cfg.token_init,
    )
    return DualLoRACodec(generator, spec, seed=cfg.seed)


def make_optimizer(codec: DualLoRACodec, cfg: TrainConfig):
    """AdamW over both adapters, the compression tokens and the projector, built while all are trainable."""
    codec.set_trainable(True)
    return codec._torch.optim.AdamW(codec.trainable_parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)


def train(generator, sessions: Sequence[Session], cfg: TrainConfig, out: str | Path, *, progress: bool = True) -> dict:
    """Train a codec on ``sessions`` into ``out`` (checkpoint/, codec/, log.jsonl, report.html); resumes."""
    import torch
    from safetensors.torch import load_file
    from tqdm.auto import tqdm

    out = Path(out)
    ckpt = out / "checkpoint"
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    codec = new_codec(generator, cfg)
    optimizer = make_optimizer(codec, cfg)
    plan = example_plan(sessions, cfg)
    if not plan:
        raise ValueError("no training examples: sessions need at least 2 turns")
    total_steps = int(len(plan) * cfg.epochs) // cfg.batch_size
    if cfg.max_steps is not None:
        total_steps = min(total_steps, cfg.max_steps) if total_steps else cfg.max_steps
    step, history = 0, []
    if (ckpt / "state.json").is_file():
        state = json.loads((ckpt / "state.json").read_text())
        if state["run_key"] != cfg.run_key():
            changed = sorted(k for k in cfg.run_key() if state["run_key"].get(k) != cfg.run_key()[k])
            raise ValueError(
                f"{ckpt} was made with other settings ({', '.join(changed)}); use another --out or the same settings"
            )
        codec.load_state_dict(load_file(str(ckpt / "codec.safetensors")))
        optimizer.load_state_dict(torch.load(ckpt / "optimizer.pt", weights_only=True))
        step, history = state["step"], state["history"]
        log.warning("Resuming from %s at step %d of %d", ckpt, step, total_steps)

    def save_checkpoint() -> None:
        ckpt.mkdir(exist_ok=True)
        from safetensors.torch import save_file

        save_file({k: v.contiguous() for k, v in codec.state_dict().items()}, str(ckpt / "codec.safetensors"))
        torch.save(optimizer.state_dict(), ckpt / "optimizer.pt")
        (ckpt / "state.json").write_text(json.dumps({"run_key": cfg.run_key(), "step": step, "history": history}))

    monitor_texts = (
        [sessions[s].turns[t]["reply"] for s, t in plan[: cfg.monitor_replies]] if cfg.monitor_every else []
    )
    started = time.perf_counter()
    bar = tqdm(total=total_steps, initial=step, desc="codec training", unit="step", disable=not progress)
    codec.set_trainable(True)
    stop_reason = "steps"
    while step < total_steps:
        if cfg.max_minutes is not None and time.perf_counter() - started > 60 * cfg.max_minutes:
            stop_reason = "time"
            break
        t0 = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        losses = {"generate": [], "autoencode": []}
        for k in range(cfg.batch_size):
            index = step * cfg.batch_size + k
            s, t = plan[index % len(plan)]
            rng = random.Random(f"{cfg.seed}:{index}")  # each example's forms depend on the seed and its index only
            if cfg.objective == "retention":
                auto = rng.random() < cfg.reconstruct_share
            else:
                auto = step < cfg.autoencode_steps and rng.random() < cfg.autoencode_share
            example = make_example(sessions[s], t, cfg, rng, autoencode=auto)
            loss = example_loss(codec, example, max_target_tokens=cfg.max_target_tokens)
            (loss / cfg.batch_size).backward()
            losses[example.kind].append(float(loss.detach()))
        torch.nn.utils.clip_grad_norm_(codec.trainable_parameters(), cfg.grad_clip)
        optimizer.step()
        step += 1
        record = {"step": step, "seconds": round(time.perf_counter() - t0, 3)}
        for kind, values in losses.items():
            if values:
                record[f"loss_{kind}"] = round(sum(values) / len(values), 4)
        history.append(record)
        if cfg.monitor_every and step % cfg.monitor_every == 0:
            record.update(monitor(codec, monitor_texts))
            codec.set_trainable(True)
        bar.update(1)
        bar.set_postfix({k: v for k, v in record.items() if k.startswith(("loss", "latent_cos", "rouge"))})
        if step % cfg.save_every == 0 or step == total_steps:
            save_checkpoint()
    bar.close()
    save_checkpoint()
    codec.set_trainable(False)
    seconds = [r["seconds"] for r in history]
    summary = {
        "steps": step,
        "total_steps": total_steps,
        "stopped_by": stop_reason if step < total_steps else "steps",
        "examples_seen": step * cfg.batch_size,
        "train_sessions": len(sessions),
        "steps_per_s": round(len(seconds) / sum(seconds), 4) if seconds else None,
        "final_loss": next((r["loss_generate"] for r in reversed(history) if "loss_generate" in r), None),
        "config": asdict(cfg),
        "backbone": generator.name,
        "torch": torch.__version__,
    }
    save_codec(codec, out / "codec", provenance=summary)
    (out / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in history))
    write_report(
        out,
        "Codec training",
        [loss_figure(history)],
        notes=json.dumps({k: v for k, v in summary.items() if k != "config"}),
    )
    return summary


def monitor(codec: DualLoRACodec, texts: Sequence[str]) -> dict:
    """Collapse check: mean cosine between latents of different replies (near 1: one shared
    direction), and ROUGE-L of the replies decoded back from their latents."""
    import numpy as np

    from ..evals.codec import rouge_l_f1

    codec.set_trainable(False)
    latents = [codec.compress(t) for t in texts]  # each (n_latent, hidden)
    units = [lat / np.linalg.norm(lat, axis=1, keepdims=True) for lat in latents]
    across = [float((a @ b.T).mean()) for i, a in enumerate(units) for b in units[i + 1 :]]
    rouge = []
    for text, lat in zip(texts, latents):
        reference = codec.generator.tokenizer.decode(codec.reply_windows(text)[0][0])
        rouge.append(rouge_l_f1(codec.reconstruct(lat, max_new_tokens=48), reference))
    return {
        "latent_cos": round(float(np.mean(across)), 4) if across else None,
        "rouge_l": round(float(np.mean(rouge)), 4) if rouge else None,
    }


def loss_figure(history: list[dict]):
    import plotly.graph_objects as go

    fig = go.Figure()
    for kind in ("generate", "autoencode"):
        points = [(r["step"], r[f"loss_{kind}"]) for r in history if f"loss_{kind}" in r]
        if points:
            fig.add_trace(
                go.Scatter(x=[p[0] for p in points], y=[p[1] for p in points], mode="lines", name=f"{kind} loss")
            )
    for key, name in (("latent_cos", "latent cosine across replies"), ("rouge_l", "reconstruction ROUGE-L")):
        points = [(r["step"], r[key]) for r in history if r.get(key) is not None]
        if points:
            fig.add_trace(
                go.Scatter(
                    x=[p[0] for p in points], y=[p[1] for p in points], mode="lines+markers", name=name, yaxis="y2"
                )
            )
    fig.update_layout(
        title="Codec training loss (and collapse checks)",
        xaxis_title="optimizer step",
        yaxis_title="cross-entropy (nats/token)",
        yaxis2=dict(title="cosine / ROUGE-L", overlaying="y", side="right", range=[0, 1]),
    )
    return fig
