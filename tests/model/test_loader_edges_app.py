"""The app's message edges through gradio_client, on the packaged models: what a visitor reads when
a model server cannot be reached, an Inspect status built from a file's text, and the refusal of a
damaged LoCoMo file.

* Compare against an OpenAI-compatible URL that refuses connections: the column says the server
  cannot be reached, without its URL; the server log has the URL.
* A conversation id holding markup reaches Inspect's status (a Markdown component) escaped.
* A LoCoMo file that cannot be used is refused as LoCoMo (never as a "Session file").
"""

from __future__ import annotations

import json
import logging
import socket

import pytest
from gradio_client import Client, handle_file

XSS = "<img src=x onerror=alert(1)>"
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"
ERR0, ERR1 = 8, 9  # generate_replies outputs: chat0, chat1, prompt0, prompt1, chart0, chart1, im0, im1, err0, err1


def _refused_port() -> int:
    """A loopback port nothing listens on (bound, then released): connections to it are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def unreachable_app(models, tmp_path):
    """The real app whose generator is an OpenAI-compatible server at a URL that refuses connections."""
    from app.main import launch
    from app.state import AppEngine
    from rea_core import RuntimeConfig, Settings
    from rea_core.backends.openai_compat import OpenAIGenerator
    from rea_core.loading import Models
    from tests.conftest import _free_port

    url = f"http://127.0.0.1:{_refused_port()}/v1"
    remote = OpenAIGenerator("served-model", base_url=url, tokenizer=models.generator.tokenizer, max_retries=0)
    engine = AppEngine(
        models=Models(generator=remote, embedder=models.embedder),
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)),
        database_url=f"sqlite:///{tmp_path / 'app.db'}",
    )
    port = _free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/", url
    finally:
        demo.close()
        remote.close()


def test_an_unreachable_model_server_is_named_without_its_url(unreachable_app, caplog):
    app_url, server_url = unreachable_app
    client = Client(app_url, verbose=False)
    with caplog.at_level(logging.WARNING):
        client.predict("What is the capital of France?", api_name="/accept_message")
        out = client.predict(0.5, 0.7, api_name="/generate_replies")
    for err in (out[ERR0], out[ERR1]):  # both columns asked the server
        assert "cannot reach the model server after 1 attempts; nothing was stored" in err, err
        assert server_url not in err and "127.0.0.1" not in err and ":" + server_url.rsplit(":", 1)[1] not in err
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"cannot reach the model server at {server_url}" in logged  # the operator still learns where


@pytest.fixture()
def client(app_url):
    return Client(app_url, verbose=False)


def test_an_inspect_status_escapes_the_conversation_id(client, tmp_path):
    path = tmp_path / "marked.jsonl"
    turns = [{"user": "I adopted a cat named Miso.", "assistant": "Lovely."}, {"user": "What is its name?"}]
    path.write_text(json.dumps({"id": XSS, "turns": turns}) + "\n", encoding="utf-8")
    loaded = json.dumps(client.predict(handle_file(str(path)), api_name="/inspect_upload"))
    assert "1 conversation(s) in marked.jsonl" in loaded
    traced = client.predict(XSS, 0.5, 0.7, api_name="/trace")
    (status,) = [o for o in traced if isinstance(o, str) and o.startswith("Traced")]
    assert status.startswith(f"Traced 2 turns of {ESCAPED} at tau_low") and XSS not in status, status


def test_an_inspect_refusal_quoting_the_file_is_escaped(client, tmp_path):
    path = tmp_path / "twice.jsonl"
    line = json.dumps({"id": XSS, "turns": [{"user": "Hello."}]})
    path.write_text(line + "\n" + line + "\n", encoding="utf-8")  # the id again: refused, quoting it
    out = json.dumps(client.predict(handle_file(str(path)), api_name="/inspect_upload"))
    assert "duplicate conversation id" in out and json.dumps(ESCAPED)[1:-1] in out and XSS not in out, out


LOCOMO = {
    "sample_id": "conv-1",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely!"},
    ],
    "qa": [{"question": "What is Ana's cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 4}],
}


@pytest.mark.parametrize(
    "damage, said",
    [
        (lambda d: d.pop("qa"), 'LoCoMo conversation 0: conv-1: a LoCoMo conversation needs "session_1" and "qa"'),
        (lambda d: d["session_1"][0].pop("dia_id"), "LoCoMo conversation 0: conv-1: session_1 turn 0 needs text"),
        (lambda d: d.update(qa=5), "LoCoMo conversation 0 is malformed (a field of a wrong type)"),
    ],
    ids=["no qa", "no dia_id", "qa not a list"],
)
def test_a_damaged_locomo_file_is_refused_as_locomo(client, tmp_path, damage, said):
    data = json.loads(json.dumps(LOCOMO))
    damage(data)
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = client.predict(handle_file(str(path)), api_name="/inspect_upload")
    (status,) = [o for o in out if isinstance(o, str) and "Cannot load" in o]
    status = status.replace("&quot;", '"')
    assert said in status and "Session file" not in status and "session file" not in status, status


def test_a_locomo_file_that_is_not_json_is_not_called_a_session_file(client, tmp_path):
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO)[:-20], encoding="utf-8")  # cut off
    out = client.predict(handle_file(str(path)), api_name="/inspect_upload")
    (status,) = [o for o in out if isinstance(o, str) and "Cannot load" in o]
    assert "locomo.json: not valid JSON" in status and "Session file" not in status, status
