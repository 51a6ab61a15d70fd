"""Fine-tuning the English second opinion's encoder: a LoRA adapter on the packaged MiniLM,
then the word-class model (``recognizer/multilingual.py``) on the adapted vectors.

Why: on MiniLM's frozen vectors the second opinion scored fresh authors' standing wishes low (English recall
0.65-0.75 on each fresh round while cross-validation over template families read 0.95), and every
threshold low enough to catch them also fired on the label set. Fitted so that the encoder itself
learns "about the assistant's later replies" against "a one-off request", and judged on an authoring
round it never saw, it caught more of that round at the same label-set false-alarm budget.

Split: the units are those of ``english_units`` (the hard set's English dev rows and the label set's
train split). A calibration slice is held out: the hard rows of one authoring round (``calibration_round``,
an id prefix; the newest) and one fifth of the label-set groups. The adapter and the logistic regression
are fitted on the rest; both thresholds are chosen on the slice, by per-message F1 of what the recognizer
then decides, with no added false alarm on its label-set messages (``CALIBRATION_FALSE_ALARMS``). The
shipped model is the one fitted without the slice, so its thresholds come from data it never saw.

Example:
    >>> model, report = train_english_adapter(hard, labels, without, "packaged", "rea_core/adapters/" + ADAPTER_DIR)
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..recognizer.default import LabeledInput
from ..recognizer.hard_set import HardInput
from ..recognizer.labels import GLOBAL
from ..recognizer.multilingual import ADAPTER_MAX_TOKENS, WordClassRecognizer, features, fit_multilingual_features
from .multilingual import (
    ENGLISH_THRESHOLD_GRID,
    LABEL_SET_FAMILY,
    Unit,
    _best_thresholds,
    _pr,
    english_units,
    message_decisions,
)
from .recognizer import CV_FOLDS

if TYPE_CHECKING:
    from ..recognizer.recognize import InstructionRecognizer

ADAPTER_DIR = "recognizer-english-minilm"  # its folder under rea_core/adapters/
CALIBRATION_FALSE_ALARMS = 0  # added false alarms allowed on the calibration slice's label-set messages


ADAPTER_README = """# recognizer-english-minilm

A LoRA adapter (rank {rank}, query and value projections) on the embedder `{base}`, fine-tuned for the
Instruction Recognizer's English second opinion: does a short English message ask something of
the assistant's later replies, or is it a one-off request or a remark? The word-class model
`rea_core/data/recognizer_english_word_classes.json` reads its mean-pooled unit vectors (at most 128 tokens).

Written by `scripts/train_multilingual_recognizer.py --english` (`rea_core/training/english_adapter.py`):
{epochs} epochs at learning rate {learning_rate} on the hard set's English dev rows and the label set's train
split, less a calibration slice (one authoring round and one fifth of the label-set groups) on which the
thresholds are set. Provenance and the calibration numbers are in the model's JSON.
"""


@dataclass(frozen=True)
class AdapterConfig:
    """How the adapter is fitted (LoRA on the attention's query and value projections)."""

    rank: int = 8
    epochs: int = 2
    learning_rate: float = 5e-4
    batch_size: int = 32
    dropout: float = 0.1
    logit_scale: float = 10.0  # the head reads unit vectors: scaled so its logits can reach the labels


def calibration_units(units: Sequence[Unit], hard_rows: Sequence[HardInput], calibration_round: str) -> np.ndarray:
    """(n,) bool: the units held out to choose the thresholds: the hard rows whose id starts with
    ``calibration_round`` and the label-set groups in one of CV_FOLDS stable hash folds."""
    held = []
    for u in units:
        if u.family.startswith(LABEL_SET_FAMILY):
            held.append(zlib.crc32(u.family.encode()) % CV_FOLDS == 0)
        else:
            held.append(hard_rows[u.message].id.startswith(calibration_round))
    return np.array(held, dtype=bool)


def fine_tune(
    texts: Sequence[str],
    labels: Sequence[bool],
    base: str,
    out_dir: str | Path,
    config: AdapterConfig = AdapterConfig(),
    *,
    seed: int = 0,
    progress: Callable[[str], None] = print,
) -> Path:
    """Fit a LoRA adapter on ``base`` (an embedder spec) with a linear head on its mean-pooled unit vectors
    (weighted binary cross-entropy); write the adapter to ``out_dir`` and return it. The head is dropped:
    the word-class model is fitted on the adapted vectors afterwards."""
    import torch
    from peft import LoraConfig, get_peft_model

    from ..backends import load_embedder

    torch.manual_seed(seed)
    module = load_embedder(base).model[0]
    tokenizer = module.tokenizer
    model = get_peft_model(
        module.auto_model,
        LoraConfig(
            r=config.rank, lora_alpha=2 * config.rank, target_modules=["query", "value"], lora_dropout=config.dropout
        ),
    )
    head = torch.nn.Linear(model.config.hidden_size, 1)
    params = [p for p in model.parameters() if p.requires_grad] + list(head.parameters())
    optimizer = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=0.01)
    y = np.asarray(labels, dtype=bool)
    if y.all() or not y.any():
        raise InputError("fine-tuning the adapter needs global and non-global texts")
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(float((~y).sum() / y.sum())))
    rng = np.random.default_rng(seed)
    steps = -(-len(texts) // config.batch_size)
    model.train()
    for epoch in range(config.epochs):
        order = rng.permutation(len(texts))
        for step in range(steps):
            batch = order[step * config.batch_size : (step + 1) * config.batch_size]
            enc = tokenizer(
                [texts[i] for i in batch],
                padding=True,
                truncation=True,
                max_length=ADAPTER_MAX_TOKENS,
                return_tensors="pt",
            )
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            pooled = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)
            loss = loss_fn(head(pooled * config.logit_scale).squeeze(-1), torch.tensor(y[batch], dtype=torch.float))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 20 == 0 or step == steps - 1:
                progress(
                    f"adapter: epoch {epoch + 1}/{config.epochs}, step {step + 1}/{steps}, loss {loss.item():.3f}"
                )
    out_dir = Path(out_dir)
    model.save_pretrained(str(out_dir))
    # the base is named, not the local folder it was read from (which differs per machine)
    config_path = out_dir / "adapter_config.json"
    adapter_config = json.loads(config_path.read_text(encoding="utf-8"))
    adapter_config["base_model_name_or_path"] = base
    config_path.write_text(json.dumps(adapter_config, indent=1) + "\n", encoding="utf-8")
    (out_dir / "README.md").write_text(ADAPTER_README.format(base=base, **asdict(config)), encoding="utf-8")
    return out_dir


def train_english_adapter(
    hard_rows: Sequence[HardInput],
    label_rows: Sequence[LabeledInput],
    recognizer: "InstructionRecognizer",
    base: str,
    adapter_dir: str | Path,
    *,
    calibration_round: str,
    config: AdapterConfig = AdapterConfig(),
    seed: int = 0,
    progress: Callable[[str], None] = print,
) -> tuple[WordClassRecognizer, dict[str, Any]]:
    """Fit the English second opinion with its own adapted encoder (module docstring); the adapter is written
    to ``adapter_dir`` (the shipped one: ``rea_core/adapters/``ADAPTER_DIR).

    ``recognizer``: the recognizer without an English second opinion (what it already calls global).

    Raises:
        InputError: no calibration rows for ``calibration_round``, or one label only on either side.
    """
    from ..backends.sentence import SentenceEmbedder

    units = english_units(hard_rows, label_rows)
    held = calibration_units(units, hard_rows, calibration_round)
    hard_held = [u for u, h in zip(units, held) if h and u.whole and not u.family.startswith(LABEL_SET_FAMILY)]
    if not any(u.is_global for u in hard_held):
        raise InputError(f"no English global dev rows with ids starting {calibration_round!r} to calibrate on")
    whole = [u for u in units if u.whole]
    progress(f"the recognizer without the English model reads {len(whole)} messages ...")
    verdicts = recognizer.recognize_many([u.text for u in whole])
    already = {u.message: v.label == GLOBAL for u, v in zip(whole, verdicts)}
    fit_idx, cal_idx = np.where(~held)[0], np.where(held)[0]
    texts = [u.text for u in units]
    y = np.array([u.is_global for u in units])
    progress(f"fine-tuning on {len(fit_idx)} units; {len(cal_idx)} held out to set the thresholds ...")
    adapter = fine_tune(
        [texts[i] for i in fit_idx],
        y[fit_idx],
        base,
        adapter_dir,
        config,
        seed=seed,
        progress=progress,
    )
    encoder = SentenceEmbedder.load_with_adapter(base, adapter, max_tokens=ADAPTER_MAX_TOKENS)
    progress(f"embedding {len(units)} units with {encoder.name} ...")
    X = np.hstack([encoder.encode(texts).astype(np.float64), features(texts, ["en"] * len(texts))])
    model = fit_multilingual_features(X[fit_idx], y[fit_idx], 1.0)
    scores = model.p_global_features(X[cal_idx])
    cal_units = [units[i] for i in cal_idx]
    _, threshold, sentence_threshold = _best_thresholds(
        cal_units,
        scores,
        already,
        ENGLISH_THRESHOLD_GRID,
        allowed_false_alarms=CALIBRATION_FALSE_ALARMS,
    )
    model.threshold, model.sentence_threshold = threshold, sentence_threshold
    model.languages, model.embedder_name, model.adapter = ("en",), encoder.name.split("+")[0], str(adapter)
    hard_cal = [k for k, u in enumerate(cal_units) if not u.family.startswith(LABEL_SET_FAMILY)]
    label_cal = [k for k, u in enumerate(cal_units) if u.family.startswith(LABEL_SET_FAMILY)]
    report: dict[str, Any] = {"rows": len(whole), "units": len(units), "families": len({u.family for u in units})}
    for name, idx in (("calibration round", hard_cal), ("calibration label set", label_cal)):
        chosen = [cal_units[k] for k in idx]
        p, r = _pr(message_decisions(chosen, scores[idx], threshold, sentence_threshold, already))
        report[name] = {"messages": sum(u.whole for u in chosen), "precision": round(p, 4), "recall": round(r, 4)}
    model.provenance = {
        "trained_on": "rea_core/data/recognizer_hard.jsonl (dev half, en) + rea_core/data/recognizer_train.jsonl "
        f"(train split, short messages), less the calibration slice (round {calibration_round!r}, one label-set fold)",
        "decides": "English messages the embedding stage 2 scores below its threshold",
        "adapter_config": asdict(config),
        "c": 1.0,
        "threshold": threshold,
        "sentence_threshold": sentence_threshold,
        **report,
    }
    progress(
        f"thresholds {threshold:.3f} (whole) / {sentence_threshold:.3f} (sentence); on the held-out round: "
        f"P {report['calibration round']['precision']:.3f} R {report['calibration round']['recall']:.3f}"
    )
    return model, model.provenance
