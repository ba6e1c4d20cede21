"""ui.tables: an HTML table (whose text scales with the page) in presentation mode, the
interactive grid otherwise, both without the index and with the same cells."""

from streamlit.testing.v1 import AppTest


def _page(presentation: bool) -> AppTest:
    def script(presentation):
        import pandas as pd

        from ui.tables import table

        table(pd.DataFrame({"head": [1, 2], "weight": [0.25, 0.75]}), presentation)

    return AppTest.from_function(script, args=(presentation,)).run(timeout=60)


def test_presentation_mode_draws_an_html_table():
    page = _page(presentation=True)
    assert not page.exception
    assert len(page.table) == 1 and len(page.dataframe) == 0
    assert page.table[0].value["weight"].tolist() == [0.25, 0.75]


def test_laptop_keeps_the_interactive_grid():
    page = _page(presentation=False)
    assert not page.exception
    assert len(page.dataframe) == 1 and len(page.table) == 0
    assert page.dataframe[0].value["head"].tolist() == [1, 2]
