"""The app's server: `streamlit run server.py` (what `make app` does) serves the page `app.py`,
having loaded the default model and run it on the opening text before it answers its first
request, so the first visitor after a start waits no longer than the next ones. Streamlit's
`st.App` runs the `lifespan` below once, before the server's health check says "ok"."""

import contextlib

import streamlit as st

from ui import state


@contextlib.asynccontextmanager
async def lifespan(_app):
    state.preload()
    yield


app = st.App("app.py", lifespan=lifespan)
