"""ui.tables: an HTML table (whose text scales with the page) in presentation mode, the
interactive grid otherwise, both without the index and with the same cells."""

from streamlit.testing.v1 import AppTest


def _page(presentation: bool) -> AppTest:
    def script(presentation):
        import pandas as pd

        from ui.tables import table

        table(
            pd.DataFrame({"head": [1, 2], "weight": [0.25, 0.75], "ms": [21.9, 3.0]}), presentation
        )

    return AppTest.from_function(script, args=(presentation,)).run(timeout=60)


def test_presentation_mode_draws_an_html_table():
    page = _page(presentation=True)
    assert not page.exception
    assert len(page.table) == 1 and len(page.dataframe) == 0
    assert page.table[0].value["weight"].tolist() == [0.25, 0.75]


def test_the_html_table_prints_numbers_as_rounded_not_with_four_decimals():
    """Its own formatting printed "21.9000" for a time rounded to 21.9 ms (the Model tab's
    "This run"). Read from what the browser is sent: the table's display values."""
    import pyarrow as pa

    page = _page(presentation=True)
    styler = page.table[0].proto.arrow_data.styler
    shown = pa.ipc.open_stream(styler.display_values).read_pandas()
    cells = {str(v) for row in shown.itertuples(index=False) for v in row}
    assert {"0.25", "0.75", "21.9", "3"} <= cells, cells
    assert not any(c.endswith("000") for c in cells), cells


def test_laptop_keeps_the_interactive_grid():
    page = _page(presentation=False)
    assert not page.exception
    assert len(page.dataframe) == 1 and len(page.table) == 0
    assert page.dataframe[0].value["head"].tolist() == [1, 2]


def _wide_page(width_px: int | None) -> AppTest:
    def script(width_px):
        import pandas as pd

        from ui.tables import table

        # 12 columns whose headers alone need about 1,500 px in the grid
        columns = {f"largest weight, scaled run {n}": [0.5, 0.25] for n in range(12)}
        table(pd.DataFrame(columns), False, width_px=width_px)

    return AppTest.from_function(script, args=(width_px,)).run(timeout=60)


def test_a_table_wider_than_its_place_is_drawn_as_html_whose_headers_wrap():
    """The grid never wraps a header: its last columns hid behind a scroll bar at 1280 px
    (issue 45, item 9). Such a table is drawn as HTML; a place wide enough keeps the grid."""
    narrow = _wide_page(None)  # the laptop's main area
    assert not narrow.exception
    assert len(narrow.table) == 1 and len(narrow.dataframe) == 0
    assert len(narrow.table[0].value.columns) == 12
    wide = _wide_page(4000)
    assert len(wide.dataframe) == 1 and len(wide.table) == 0


def test_the_grids_width_is_its_headers_or_values_whichever_is_longer():
    from ui.tables import GRID_CHAR_PX, GRID_PADDING_PX, grid_width_px

    width = grid_width_px({"ab": ["x"], "c": ["a longer value"]})
    assert width == (2 + 14) * GRID_CHAR_PX + 2 * GRID_PADDING_PX
