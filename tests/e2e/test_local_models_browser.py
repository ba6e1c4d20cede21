"""The server started with `--models DIR` (streamlit run server.py -- --models DIR) offers the
models of that folder in its model box, and a browser opens one: the option reaches the page."""

from __future__ import annotations

import pytest

import harness
from tests.tiny_models import write_model

pytestmark = pytest.mark.browser
pytest.importorskip("transformers")


def test_a_folder_named_on_the_servers_command_line_is_offered(tmp_path, browser):
    write_model("llama", tmp_path / "models" / "course-llama")
    empty_cache = {"HF_HUB_CACHE": str(tmp_path / "no-cache")}
    arguments = ("--models", str(tmp_path / "models"))
    with harness.running_server(tmp_path, environment=empty_cache, arguments=arguments) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page, watch = harness.watched_page(context)
            page.goto(f"{server.url}/?model=dir:course-llama&text=The+small+dog+sees")
            harness.wait_for_title(page, "decoder masked self-attention")
            box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Model").first
            assert box.locator("input").input_value() == "course-llama (on this machine)"
            caption = page.get_by_text("Llama, 2 layers × 4 heads").first.inner_text()
            assert str(tmp_path / "models" / "course-llama") in caption
            assert not watch.problems()
        finally:
            context.close()
