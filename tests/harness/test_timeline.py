"""A failed browser test's report says what the page and the server said (issue 68): each line
checked against messages built here with Streamlit's own protobuf classes."""

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.timeline import Timeline, describe_back, describe_forward


def _tab_bar(path: list[int], opening: int) -> ForwardMsg:
    message = ForwardMsg()
    message.metadata.delta_path.extend(path)
    message.delta.add_block.tab_container.default_tab_index = opening
    return message


def test_the_server_s_tab_bar_and_the_tab_it_opens():
    assert describe_forward(_tab_bar([0, 4], 4)) == "tab bar at [0, 4], opening tab 4"
    tab = ForwardMsg()
    tab.metadata.delta_path.extend([0, 4, 2])
    tab.delta.add_block.tab.label = "Head atlas"
    assert describe_forward(tab) == "tab 2 (Head atlas)"


def test_runs_and_links_in_words():
    started, finished, link = ForwardMsg(), ForwardMsg(), ForwardMsg()
    started.new_session.SetInParent()
    finished.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    link.page_info_changed.query_string = "model=en-de&tab=Compare"
    assert describe_forward(started) == "a script run starts"
    assert describe_forward(finished) == "the run ends (FINISHED_SUCCESSFULLY)"
    assert describe_forward(link) == "link ?model=en-de&tab=Compare"


def test_other_elements_stay_out():
    chart = ForwardMsg()
    chart.metadata.delta_path.extend([0, 4, 0, 1])
    chart.delta.new_element.markdown.body = "a figure's caption"
    assert describe_forward(chart) is None


def test_a_rerun_says_its_tab_and_what_was_clicked():
    message = BackMsg()
    message.rerun_script.query_string = "present=1&model=en-de"
    tab = message.rerun_script.widget_states.widgets.add()
    tab.id, tab.string_value = "$$ID-0123abcd-tab", "Attention"
    click = message.rerun_script.widget_states.widgets.add()
    click.id, click.trigger_value = "$$ID-89ef-scene_gallery_8", True
    layer = message.rerun_script.widget_states.widgets.add()
    layer.id, layer.int_value = "$$ID-4567-layer", 3
    assert describe_back(message) == (
        "rerun ?present=1&model=en-de with tab=Attention, scene_gallery_8=True"
    )


def test_the_timeline_keeps_order_and_its_length():
    timeline = Timeline()
    for opening in range(300):
        timeline.received(_tab_bar([0, 3], opening))
    lines = timeline.text().splitlines()
    assert len(lines) == 200
    assert lines[0].endswith("opening tab 100") and lines[-1].endswith("opening tab 299")
    ping = BackMsg()
    ping.app_heartbeat = True
    timeline.sent(ping.SerializeToString())
    assert timeline.text().splitlines()[-1].endswith("opening tab 299")


def test_where_each_tab_bar_stood():
    timeline = Timeline()
    for path in ([0, 3], [0, 2], [0, 2]):
        timeline.received(_tab_bar(path, 1))
    assert timeline.tab_bar_paths() == ["[0, 3]", "[0, 2]", "[0, 2]"]
