"""A ``Generator`` that talks to any OpenAI-compatible chat-completions server.

vLLM, ``transformers serve``, llama.cpp's server and Hugging Face Inference Providers' router
(``https://router.huggingface.co/v1`` with an ``HF_TOKEN``) all speak this API. Selected with
``REA_MODEL=openai:<model id>`` (or ``--model openai:<model id>``); settings from the environment:

* ``REA_OPENAI_BASE_URL``: the server's ``/v1`` URL (default: the HF router when ``HF_TOKEN`` is
  set, else ``http://127.0.0.1:8000/v1``, vLLM's default).
* ``REA_OPENAI_API_KEY``, else ``HF_TOKEN``: sent as a bearer token (none when neither is set).
* ``REA_TOKENIZER`` (``--tokenizer``): a local tokenizer (folder, hub id or ``packaged``) for exact
  token counts; without one, segment counts are estimated (4 characters a token) and a turn's
  prompt total comes from the server's usage figures. ``token_source`` says which.
* ``REA_OPENAI_TIMEOUT_S`` (60): seconds to wait for the server to connect or send the next chunk.
* ``REA_OPENAI_MAX_RETRIES`` (3): retries, with exponential backoff from 0.5 s (``Retry-After``
  honoured up to 30 s), of a request that got HTTP 429 / 502 / 503 or a refused or reset
  connection *before any token arrived*. A stream that breaks after its first token is never
  retried (the reply would repeat): the turn fails with an error and nothing is stored.

Replies are greedy (``temperature: 0``) and streamed. The server keeps its own KV cache (vLLM's
``--enable-prefix-caching``), so ``cache_key`` is not used here. The server takes text only:
compressed replies are text-compressed (no latent codec), and the optional capabilities are the
local tokenizer's and, where the server returns ``logprobs`` (probed once), ``choice_logprobs``.
"""

from __future__ import annotations

import json
import math
import random
import time
from typing import Iterator, Sequence

from ..errors import ModelLoadError, ServingError
from ..types import Generation
from .base import CHOICE_LOGPROBS, TOKENIZER, Message, finish

PREFIX = "openai:"
HF_ROUTER = "https://router.huggingface.co/v1"
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
RETRY_STATUSES = (429, 502, 503)
CHARS_PER_TOKEN = 4  # the estimate used where no local tokenizer is named
MISSING_LOGPROB = -30.0  # a choice absent from the server's top log-probabilities


def is_openai_spec(spec: str | None) -> bool:
    return bool(spec) and spec.strip().lower().startswith(PREFIX)


def endpoint(base_url: str | None, api_key: str | None, hf_token: str | None) -> tuple[str, str | None]:
    """(base URL, bearer token): the given ones, else the HF router when a Hugging Face token is set, else a
    local server."""
    return base_url or (HF_ROUTER if hf_token else DEFAULT_BASE_URL), api_key or hf_token


class OpenAIGenerator:
    """Chat completions over HTTP behind the ``Generator`` interface (see the module docstring)."""

    def __init__(
        self,
        model_id: str,
        *,
        base_url: str,
        api_key: str | None = None,
        tokenizer=None,
        tokenizer_name: str = "",
        context_window: int | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
    ):
        import httpx

        if not model_id:
            raise ModelLoadError("openai:<model id> needs a model id, e.g. openai:meta-llama/Llama-3.1-8B-Instruct")
        self.model_id = model_id
        self.name = f"{PREFIX}{model_id}"
        self.base_url = base_url.rstrip("/")
        self.tokenizer = tokenizer
        self.tokenizer_name = tokenizer_name
        self.token_source = "tokenizer" if tokenizer is not None else "estimate"
        self.context_window = int(context_window or getattr(tokenizer, "model_max_length", 0) or 8192)
        if self.context_window > 10**7:  # tokenizers without a limit report a huge sentinel
            self.context_window = 8192
        self.timeout_s, self.max_retries, self.backoff_s = timeout_s, int(max_retries), backoff_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)))
        self._logprobs: bool | None = None  # probed on first need
        self.logprobs_note = ""

    @classmethod
    def from_spec(
        cls,
        spec: str,
        *,
        tokenizer: str | None = None,
        context_window: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        hf_token: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
    ) -> "OpenAIGenerator":
        """``openai:<model id>`` at ``base_url`` (``settings.OpenAISettings``); ``tokenizer`` names a local
        tokenizer."""
        model_id = spec.strip()[len(PREFIX) :].strip()
        base, token = endpoint(base_url, api_key, hf_token)
        tok = _load_tokenizer(tokenizer) if tokenizer else None
        return cls(
            model_id,
            base_url=base,
            api_key=token,
            tokenizer=tok,
            tokenizer_name=tokenizer or "",
            context_window=context_window,
            timeout_s=timeout_s,
            max_retries=max_retries,
        )

    # -- capabilities --------------------------------------------------------------------------

    @property
    def capabilities(self) -> frozenset[str]:
        """What is known without asking the server: the local tokenizer (``supports`` probes logprobs)."""
        return frozenset({TOKENIZER} if self.tokenizer is not None else ())

    def supports(self, capability: str) -> bool:
        if capability == CHOICE_LOGPROBS:
            return self._supports_logprobs()
        return capability in self.capabilities

    def _supports_logprobs(self) -> bool:
        """Whether the server returns top log-probabilities (asked once, with a one-token request)."""
        if self._logprobs is None:
            try:
                self._logprobs = self._top_logprobs([{"role": "user", "content": "Say yes."}]) is not None
                self.logprobs_note = "" if self._logprobs else "the server returned no logprobs"
            except ServingError as exc:
                self._logprobs, self.logprobs_note = False, f"logprobs probe failed: {exc.public}"  # may be shown
        return self._logprobs

    # -- tokens --------------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        if self.tokenizer is not None:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def template_ids(self, messages: Sequence[Message]) -> list[int]:
        if self.tokenizer is None:
            raise AttributeError("no local tokenizer (set REA_TOKENIZER or --tokenizer)")
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        if getattr(self.tokenizer, "chat_template", None):
            return list(
                self.tokenizer.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True, return_dict=True)[
                    "input_ids"
                ]
            )
        return self.tokenizer("".join(f"{m['role']}: {m['content']}\n" for m in msgs) + "assistant:")["input_ids"]

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        if self.tokenizer is not None:
            return len(self.template_ids(messages))
        return sum(self.count_tokens(m["content"]) + 4 for m in messages) + 2  # ~4 tokens of role markup a message

    def _fit(self, messages: Sequence[Message], max_prompt_tokens: int | None) -> tuple[list[Message], int]:
        """A server takes messages, not a token string cut anywhere: drop the oldest non-system messages
        until the prompt fits (the last message always stays). Returns (messages, tokens dropped)."""
        msgs = [dict(m) for m in messages]
        if max_prompt_tokens is None:
            return msgs, 0
        full = self.prompt_tokens(msgs)
        while self.prompt_tokens(msgs) > max_prompt_tokens:
            drop = next((i for i, m in enumerate(msgs[:-1]) if m["role"] != "system"), None)
            if drop is None:
                break
            del msgs[drop]
        return msgs, full - self.prompt_tokens(msgs)

    # -- HTTP ----------------------------------------------------------------------------------

    def _request(self, body: dict, *, stream: bool):
        """Send ``body``; returns an open response (the caller closes it). Retries only before any
        token: HTTP 429/502/503 and refused or reset connections, ``max_retries`` times with backoff."""
        import httpx

        url = f"{self.base_url}/chat/completions"
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response = self._http.send(self._http.build_request("POST", url, json=body), stream=stream)
            except httpx.TimeoutException as exc:
                late = f"did not answer within {self.timeout_s:g} s ({type(exc).__name__}); nothing was stored"
                raise ServingError(
                    f"the model server at {self.base_url} {late}", public=f"the model server {late}"
                ) from exc
            except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
                if last:  # the URL and the socket's own words are the operator's, not a visitor's
                    raise ServingError(
                        f"cannot reach the model server at {self.base_url} "
                        f"({type(exc).__name__}: {exc}) after {attempt + 1} attempts; "
                        "is it running? Nothing was stored.",
                        public=f"cannot reach the model server after {attempt + 1} attempts; nothing was stored. "
                        "Try again later.",
                    ) from exc
                self._sleep(attempt, None)
                continue
            if response.status_code == 200:
                return response
            detail = self._error_detail(response)
            if response.status_code in RETRY_STATUSES and not last:
                self._sleep(attempt, response.headers.get("retry-after"))
                continue
            if response.status_code in (401, 403):
                raise ServingError(
                    f"the model server refused the request (HTTP {response.status_code}): "
                    "check REA_OPENAI_API_KEY or HF_TOKEN "
                    f"and access to '{self.model_id}'. {detail}",
                    public=f"the model server refused the request (HTTP {response.status_code}); nothing was stored",
                )
            busy = f"the model server is rate limiting (HTTP 429) after {attempt + 1} attempts; wait and send again."
            if response.status_code == 429:
                raise ServingError(f"{busy} {detail}", public=busy)
            raise ServingError(  # the server's own words ("detail") may name its hosts or paths: operator only
                f"the model server answered HTTP {response.status_code} for '{self.model_id}'. {detail}",
                public=f"the model server answered HTTP {response.status_code}; nothing was stored",
            )
        raise AssertionError("unreachable")

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        try:
            wait = min(30.0, float(retry_after)) if retry_after else self.backoff_s * 2**attempt
        except ValueError:
            wait = self.backoff_s * 2**attempt
        time.sleep(wait * (1 + 0.1 * random.random()))

    @staticmethod
    def _error_detail(response) -> str:
        try:
            response.read()
            text = response.text
        except Exception:  # a body that cannot be read adds nothing to the status
            return ""
        finally:
            response.close()
        try:
            data = json.loads(text)
            err = data.get("error", data) if isinstance(data, dict) else data
            text = err.get("message") or err.get("detail") or text if isinstance(err, dict) else str(err)
        except ValueError:
            pass
        return f"Server said: {str(text)[:300]}" if text else ""

    # -- generation ----------------------------------------------------------------------------

    def generate(
        self,
        messages: Sequence[Message],
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        cache_key: str | None = None,
    ) -> Generation:
        return finish(
            self.stream(
                messages, max_new_tokens=max_new_tokens, max_prompt_tokens=max_prompt_tokens, cache_key=cache_key
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
    ) -> Iterator[str | Generation]:
        """Greedy streamed reply; raises ``ServingError`` for a server that is down, refuses, times out or cuts
        the stream. Past ``budget_s`` the stream is closed at the next chunk and the reply so far returned."""
        import httpx

        start = time.perf_counter()
        msgs, truncated = self._fit(messages, max_prompt_tokens)
        body = {
            "model": self.model_id,
            "messages": msgs,
            "max_tokens": max_new_tokens,
            "temperature": 0,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        pieces: list[str] = []
        ttft, usage, finish_reason, done, late = None, None, None, False, False
        for attempt in range(self.max_retries + 1):
            response = self._request(body, stream=True)
            try:
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue  # SSE comments, event names, blank separators
                    data = line[5:].strip()
                    if data == "[DONE]":
                        done = True
                        break
                    try:
                        chunk = json.loads(data)
                    except ValueError:
                        chunk = None
                    if not isinstance(chunk, dict):
                        raise ServingError(
                            f"the model server sent a malformed stream chunk ({data[:120]!r}); nothing was stored",
                            public="the model server sent a malformed stream chunk; nothing was stored",
                        )
                    if chunk.get("error"):
                        raise ServingError(
                            "the model server reported an error mid-stream: "
                            f"{str(chunk['error'])[:300]}; nothing was stored",
                            public="the model server reported an error mid-stream; nothing was stored",
                        )
                    usage = chunk.get("usage") or usage
                    for choice in chunk.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content") or ""
                        if text:
                            if ttft is None:
                                ttft = time.perf_counter() - start
                                text = text.lstrip()
                            pieces.append(text)
                            yield text
                        finish_reason = choice.get("finish_reason") or finish_reason
                    if budget_s is not None and finish_reason is None and time.perf_counter() - start >= budget_s:
                        late = True  # the reply's time budget: the stream is closed here, the reply so far kept
                        break
                break
            except httpx.TimeoutException as exc:
                raise ServingError(
                    f"the model server stopped sending after {len(''.join(pieces))} "
                    f"characters (no chunk within {self.timeout_s:g} s); "
                    "nothing was stored"
                ) from exc
            except httpx.HTTPError as exc:  # connection dropped mid-stream (server killed, network)
                if not pieces and attempt < self.max_retries:  # nothing shown yet: safe to ask again
                    self._sleep(attempt, None)
                    continue
                raise ServingError(
                    f"the reply stream was cut after {len(''.join(pieces))} "
                    f"characters ({type(exc).__name__}); nothing was stored"
                ) from exc
            finally:
                response.close()
        if finish_reason is None and not done and not late:
            raise ServingError(
                f"the reply stream ended without finishing after {len(''.join(pieces))} characters; nothing was stored"
            )
        reply = "".join(pieces).strip()
        if self.tokenizer is not None:
            prompt, source = self.prompt_tokens(msgs), "tokenizer"
        elif usage and usage.get("prompt_tokens") is not None:
            prompt, source = int(usage["prompt_tokens"]), "server usage"
        else:
            prompt, source = self.prompt_tokens(msgs), "estimate"
        new = (
            int(usage["completion_tokens"])
            if usage and usage.get("completion_tokens") is not None
            else self.count_tokens(reply)
        )
        yield Generation(
            text=reply,
            prompt_tokens=prompt,
            new_tokens=new,
            wall_s=time.perf_counter() - start,
            truncated_tokens=truncated,
            ttft_s=ttft,
            token_source=source,
            out_of_time=late,
        )

    def _top_logprobs(self, messages: Sequence[Message]) -> list[dict] | None:
        """The server's top log-probabilities of the reply's first token, or None when it returns none."""
        body = {
            "model": self.model_id,
            "messages": [dict(m) for m in messages],
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 20,
        }
        response = self._request(body, stream=False)
        try:
            response.read()
            data = response.json()
        except ValueError as exc:
            raise ServingError("the model server sent a malformed answer") from exc
        finally:
            response.close()
        try:
            content = data["choices"][0]["logprobs"]["content"]
            return content[0]["top_logprobs"] or None
        except (KeyError, IndexError, TypeError):
            return None

    def choice_logprobs(self, messages: Sequence[Message], choices: Sequence[str]) -> list[float]:
        """Log-probability of each choice's first token among the server's top 20 for the reply's first token
        (an approximation of the local scorer, which sums every token of the choice)."""
        top = self._top_logprobs(messages)
        if top is None:
            raise ServingError(f"the model server returned no logprobs for '{self.model_id}'")
        scores = []
        for choice in choices:
            want = choice.strip().lower()
            found = [
                t["logprob"]
                for t in top
                if t.get("token", "").strip().lower() and want.startswith(t["token"].strip().lower())
            ]
            scores.append(max(found) if found else MISSING_LOGPROB)
        return scores

    def close(self) -> None:
        self._http.close()


def _load_tokenizer(spec: str):
    """A local tokenizer for exact counts: a folder, a hub id, or ``packaged`` (SmolLM2's)."""
    from . import packaged

    try:
        from transformers import AutoTokenizer

        path = str(packaged.packaged_generator_dir()) if packaged.is_packaged_generator(spec) else spec
        return AutoTokenizer.from_pretrained(path)
    except Exception as exc:
        raise ModelLoadError(
            f"Could not load the tokenizer '{spec}' (--tokenizer / REA_TOKENIZER): {type(exc).__name__}: {exc}"
        ) from exc
