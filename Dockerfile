# REA Studio as a Hugging Face Docker Space (sdk: docker, app_port: 7860).
# The install steps are the README's own: scripts/setup.sh, then scripts/run.sh serves the app.
FROM python:3.11-slim

RUN useradd -m -u 1000 user
USER user
# GRADIO_SERVER_NAME is set explicitly: without it (and without sign-in) `rea app` listens on 127.0.0.1 only.
ENV HOME=/home/user \
    PYTHONUNBUFFERED=1 \
    GRADIO_SERVER_NAME=0.0.0.0 \
    GRADIO_SERVER_PORT=7860 \
    GRADIO_ANALYTICS_ENABLED=False \
    HF_HUB_OFFLINE=1 \
    REA_CACHE_DIR=/home/user/.cache/rea-studio \
    REA_DATA_DIR=/home/user/app/data
WORKDIR /home/user/app

# A CPU-only torch wheel index can be passed at build time (--build-arg TORCH_INDEX_URL=...);
# empty means pip's default (the CUDA build of the pinned torch==2.13.0, right for a GPU Space).
ARG TORCH_INDEX_URL=""
ENV TORCH_INDEX_URL=${TORCH_INDEX_URL}

# Dependencies first, so code edits do not reinstall them.
COPY --chown=user pyproject.toml README.md ./
COPY --chown=user scripts ./scripts
COPY --chown=user rea_core ./rea_core
COPY --chown=user app ./app
COPY --chown=user annotations ./annotations
RUN bash scripts/setup.sh
# Convert the packaged GGUF model once, at build time, so the Space starts in seconds.
RUN .venv/bin/python -c "from rea_core import Settings; from rea_core.backends.packaged import packaged_generator_dir; print(packaged_generator_dir(Settings.from_env().models.cache_dir))"

COPY --chown=user . .
EXPOSE 7860
# scripts/run.sh migrates the database (SQLite on local disk, or REA_DATABASE_URL from a Space secret), then serves.
CMD ["bash", "scripts/run.sh"]
