"""Reading what a page sent to the browser: Plotly data arrays from a chart's JSON spec."""

import base64

import numpy as np


def plotly_array(value) -> np.ndarray:
    """A Plotly data array, plain or base64-encoded ("bdata") as plotly.py sends numpy arrays."""
    if isinstance(value, dict):
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", len(raw))).split(",")]
        return raw.reshape(shape)
    return np.asarray(value, dtype=float)
