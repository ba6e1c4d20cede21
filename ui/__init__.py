"""Streamlit widgets and layout, one module per tab; the maths lives in model/ and viz/."""
