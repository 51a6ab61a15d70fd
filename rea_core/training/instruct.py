"""Training the instruction-following adapter: a LoRA on the packaged SmolLM2-135M-Instruct that makes it act
on the standing instructions in its prompt (examples from ``instruct_data``).

On a 2-core CPU: one example at a time (prompts differ in length; padding would be wasted work), gradient
accumulated over ``batch`` examples, the loss on the reply's tokens only, and logits computed only where the
reply is (the vocabulary projection of every prompt position is a fifth of the work and none of the signal).
The adapter is saved by peft in float16, so ``PeftModel.from_pretrained`` reads it.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from .instruct_data import HELD_OUT_KINDS, InstructExample, make_examples, training_kinds

TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class InstructTrainConfig:
    examples: int = 1400
    seed: int = 0
    rank: int = 16
    alpha: int = 32
    lr: float = 3e-4
    batch: int = 8  # examples per optimizer step (accumulated)
    warmup_steps: int = 10
    max_prompt_tokens: int = 768  # longer prompts are skipped (the CPU budget)
    max_minutes: float | None = None  # stop early and save what is trained
    init: str | None = None  # an adapter folder to start from (a second stage on fresh examples)
    held_out: tuple[str, ...] = field(default_factory=lambda: tuple(sorted(HELD_OUT_KINDS)))
    focus: tuple[str, ...] = ()  # kinds that a share of the instructed examples carry (a later stage)
    focus_share: float = 0.5

    def __post_init__(self) -> None:
        if self.examples < 1 or self.batch < 1 or self.rank < 1 or not self.lr > 0:
            raise ValueError("examples, batch, rank and lr must be positive")
        if not 0.0 <= self.focus_share <= 1.0:
            raise ValueError("focus_share is a share: between 0 and 1")
        unknown = set(self.focus) - {k.name for k in training_kinds(frozenset(self.held_out))}
        if unknown:
            raise ValueError(f"--focus names kinds that are not trained on (unknown or held out): {sorted(unknown)}")


def encode(tokenizer, example: InstructExample) -> tuple[list[int], list[int]]:
    """(prompt ids, reply ids ending with the end-of-turn token) as the generator would read and write them."""
    prompt = tokenizer.apply_chat_template(
        list(example.messages), add_generation_prompt=True, tokenize=True, return_dict=True
    )["input_ids"]
    reply = tokenizer(example.target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    return list(prompt), reply


def reply_loss(model, prompt: Sequence[int], reply: Sequence[int]):
    """Mean cross-entropy of ``reply`` after ``prompt``, with logits only at the reply's positions."""
    import torch

    ids = torch.tensor([list(prompt) + list(reply)])
    logits = model(input_ids=ids, logits_to_keep=len(reply) + 1).logits[0, :-1]  # predicts each reply token
    return torch.nn.functional.cross_entropy(logits.float(), torch.tensor(list(reply)))


def train_instruct_adapter(
    model_dir: str | Path,
    out: str | Path,
    config: InstructTrainConfig,
    *,
    progress: Callable[[str], None] = print,
) -> dict:
    """Train on ``config.examples`` examples and write the adapter (float16) and ``training.json`` to ``out``."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(config.seed)  # the LoRA's initial weights
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        lora_dropout=0.0,
        target_modules=list(TARGET_MODULES),
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(base, lora)
    if config.init:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        set_peft_model_state_dict(model, load_file(str(Path(config.init) / "adapter_model.safetensors")))
        progress(f"starting from the adapter in {config.init}")
    model.train()
    focus = f"; {config.focus_share:.0%} of the instructed ones on {', '.join(config.focus)}" if config.focus else ""
    progress(f"building {config.examples} examples (held-out families: {', '.join(config.held_out)}{focus})")
    encoded, skipped = [], 0
    examples = make_examples(
        config.examples,
        config.seed,
        held_out=frozenset(config.held_out),
        focus=config.focus,
        focus_share=config.focus_share,
    )
    for example in examples:
        prompt, reply = encode(tokenizer, example)
        if len(prompt) > config.max_prompt_tokens:
            skipped += 1
            continue
        encoded.append((prompt, reply, example))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)
    steps = math.ceil(len(encoded) / config.batch)

    def lr_at(step: int) -> float:  # linear warm-up, then cosine to a tenth
        if step < config.warmup_steps:
            return config.lr * (step + 1) / config.warmup_steps
        t = (step - config.warmup_steps) / max(1, steps - config.warmup_steps)
        return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    start, log, done = time.perf_counter(), [], 0
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step)
        batch = encoded[step * config.batch : (step + 1) * config.batch]
        total = 0.0
        for prompt, reply, _ in batch:
            loss = reply_loss(model, prompt, reply) / len(batch)
            loss.backward()
            total += loss.item()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        optimizer.zero_grad()
        done += len(batch)
        elapsed = time.perf_counter() - start
        log.append({"step": step + 1, "loss": round(total, 4), "examples": done, "elapsed_s": round(elapsed, 1)})
        if (step + 1) % 5 == 0 or step + 1 == steps:
            eta = elapsed / (step + 1) * (steps - step - 1)
            progress(
                f"step {step + 1}/{steps}  loss {total:.3f}  {elapsed / 60:.1f} min, about {eta / 60:.0f} min left"
            )
        if config.max_minutes is not None and elapsed > 60 * config.max_minutes:
            progress(f"stopped at the {config.max_minutes}-minute limit after {done} examples")
            break
    model.peft_config["default"].base_model_name_or_path = "SmolLM2-135M-Instruct"  # not this machine's cache path
    model.to(torch.float16).save_pretrained(str(out))  # the LoRA weights (float16) and adapter_config.json
    kinds: dict[str, int] = {}
    for _, _, example in encoded[:done]:
        for kind in example.kinds or ("(none)",):
            kinds[kind] = kinds.get(kind, 0) + 1
    summary = {
        "config": asdict(config),
        "examples_trained": done,
        "skipped_long_prompts": skipped,
        "steps": len(log),
        "minutes": round((time.perf_counter() - start) / 60, 1),
        "final_loss": log[-1]["loss"] if log else None,
        "kinds_in_force": dict(sorted(kinds.items())),
        "layouts": {
            layout: sum(1 for _, _, e in encoded[:done] if e.layout == layout) for layout in ("rea", "vanilla")
        },
    }
    (out / "training.json").write_text(json.dumps({**summary, "log": log}, indent=2))
    return summary
