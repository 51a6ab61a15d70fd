"""Training: the latent codec (``codec.py``, its data ``codec_data.py``) and the recognizer (``recognizer.py``).

Kept apart from the runtime code they produce (``compression/``, ``recognizer/``).
"""

from .recognizer import train_default, train_recognizer

__all__ = ["train_default", "train_recognizer"]
