"""The OpenAI-compatible backend against a real server: ``transformers serve`` (the
``transformers[serving]`` extra) serving the converted packaged SmolLM2-135M on a loopback port that
these tests start and stop. No mocked HTTP. That server streams and returns no logprobs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from transformers_serve import Server  # tests/model/transformers_serve.py, shared with test_query_rewrite.py

from rea_core import REAConfig, RuntimeConfig, SeComConfig, build_strategy
from rea_core.errors import CapabilityError, ServingError
from rea_core.loading import Models

ROOT = Path(__file__).resolve().parents[2]
REA = [
    sys.executable,
    "-c",
    "from rea_core.cli.main import main; main()",
]  # this checkout's CLI, not an installed copy


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("serve"))
    yield s
    s.stop()


def collect(strategy, session, text):
    pieces, result = [], None
    for item in strategy.respond_stream(session, text):
        if isinstance(item, str):
            pieces.append(item)
        else:
            result = item
    return pieces, result


def test_rea_and_vanilla_stream_over_the_server_and_match_in_process_greedy(server, models, base_generator):
    remote = Models(generator=server.generator(tokenizer=models.generator.tokenizer), embedder=models.embedder)
    config, runtime = REAConfig(reply_form="text"), RuntimeConfig(max_new_tokens=24)
    for name in ("vanilla", "rea"):
        strategy = build_strategy(name, remote, config if name == "rea" else None, runtime=runtime)
        session = strategy.new_session()
        for text in ("From now on, answer in lowercase.", "What is the capital of France?"):
            pieces, result = collect(strategy, session, text)
            assert len(pieces) > 1 and "".join(pieces).strip() == result.reply  # streamed, token by token
            assert result.generation.ttft_s is not None and result.generation.token_source == "tokenizer"
        assert session.n_turns == 2
        if name == "vanilla":  # the server's weights (the converted base, no adapter), template and greedy decoding
            plain = Models(generator=base_generator, embedder=models.embedder)
            local = build_strategy("vanilla", plain, runtime=RuntimeConfig(max_new_tokens=24))
            local_session = local.new_session()
            local_replies = [local.respond(local_session, ex.user).reply for ex in session.episodes.exchanges]
            assert local_replies == [ex.reply for ex in session.episodes.exchanges]


def test_without_a_tokenizer_counts_come_from_server_usage_and_say_so(server, models):
    g = server.generator()
    gen = g.generate([{"role": "user", "content": "Say hello."}], max_new_tokens=8)
    assert gen.token_source == "server usage" and gen.prompt_tokens == models.generator.prompt_tokens(
        [{"role": "user", "content": "Say hello."}]
    )
    assert g.token_source == "estimate" and g.count_tokens("four score and seven") > 0


def test_strategies_declare_what_the_server_cannot_provide(server, models):
    remote = Models(generator=server.generator(), embedder=models.embedder)
    with pytest.raises(CapabilityError, match="token_logprobs"):
        build_strategy("secom", remote, SeComConfig(compressor="ppl"))
    with pytest.raises(CapabilityError, match="choice_logprobs.*no logprobs"):
        build_strategy("rea", remote, REAConfig(recognizer_stage2="llm"))
    secom = build_strategy(
        "secom", remote, runtime=RuntimeConfig(max_new_tokens=8)
    )  # auto: uncompressed units, said in the plan
    result = secom.respond(secom.new_session(), "I adopted a cat named Miso.")
    assert any("not compressed" in note for note in result.plan.notes)


def test_cli_chat_streams_rea_and_vanilla_over_the_server(server):
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "REA_OPENAI_BASE_URL": server.url,
        "REA_CODEC": "auto",
    }
    out = subprocess.run(
        [*REA, "chat", "--model", f"openai:{server.folder}", "--tokenizer", "packaged", "--max-new-tokens", "16"],
        input="What is the capital of France?\n/quit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert "[rea] " in out.stdout and "[vanilla] " in out.stdout
    assert out.stdout.count("first token") == 2 and "(tokenizer)" not in out.stdout  # exact counts: no source label
    assert "text-compressed" in out.stderr  # no latent codec over HTTP, and the CLI says so


@pytest.mark.slow  # a long stream cut by killing the server; the slow group runs it in CI
def test_killing_the_server_mid_stream_leaves_the_session_unchanged(server, models):
    """Last in this module: it kills the module's server (saves starting a second one)."""
    doomed = server
    try:
        remote = Models(generator=doomed.generator(tokenizer=models.generator.tokenizer), embedder=models.embedder)
        rea = build_strategy("rea", remote, runtime=RuntimeConfig(max_new_tokens=200))
        session = rea.new_session()
        rea.respond(session, "From now on, answer in lowercase.")
        before = session.to_dict()
        stream = rea.respond_stream(session, "Write a long story about a dragon who learns to bake bread.")
        assert isinstance(next(stream), str)  # the reply has started
        doomed.proc.kill()
        doomed.proc.wait(timeout=30)
        with pytest.raises(ServingError, match="cut|ended|reach"):
            for _ in stream:
                pass
        assert session.to_dict() == before
        with pytest.raises(ServingError, match="cannot reach the model server"):  # down: retried, then one clear error
            rea.respond(session, "Are you there?")
        assert session.to_dict() == before
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HF_HUB_OFFLINE": "1",
            "REA_OPENAI_BASE_URL": doomed.url,
            "REA_OPENAI_MAX_RETRIES": "1",
        }
        out = subprocess.run(
            [*REA, "chat", "-s", "vanilla", "--model", f"openai:{doomed.folder}", "--max-new-tokens", "8"],
            input="Hello?\n/quit\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=ROOT,
        )
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        assert out.returncode == 0 and len(errors) == 1 and "cannot reach the model server" in errors[0], out.stderr
        assert "Traceback" not in out.stderr
    finally:
        doomed.stop()  # idempotent: the module fixture's stop then does nothing
