"""Pure functions from model outputs (a Trace, or plain arrays) to Plotly figures and pandas tables."""
