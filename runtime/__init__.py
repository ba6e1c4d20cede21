"""The runtime layer: what the app and the command line run over the network of model/.

The model registry (name -> loader, `registry.py`, the loaded form in `loaded.py`), one run of a
model on a text as an immutable `Trace` (`trace.py`), read-only probes of a loaded model
(`probes.py`, `paper.py`), what the corpus knows about a typed text (`reference.py`), and the
command line (`python -m runtime`, installed as `attention-atlas`).
"""
