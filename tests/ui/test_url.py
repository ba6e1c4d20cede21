"""ui.url.switch: a view moved by a callback is set again in every run until one finishes, so a
run cut short before it drew the widgets cannot leave the browser on another tab (issue 68: a
demo scene's click drew the Compare tab on the server while the browser showed an empty
Attention tab)."""

from ui import url


def test_switched_values_are_set_again_until_a_run_finishes(monkeypatch):
    session: dict = {"tab": "Attention", "layer": 0}
    monkeypatch.setattr(url.st, "session_state", session)
    url.switch(tab="Compare", layer=2)
    assert session["tab"] == "Compare" and session[url.SWITCHED] == {"tab": "Compare", "layer": 2}
    # the run is cut short; the next one starts with the browser's old widget values
    session.update(tab="Attention", layer=0)
    url.start_run()
    assert (session["tab"], session["layer"]) == ("Compare", 2)
    url.switch(view="links")  # a second switch adds to the first
    assert session[url.SWITCHED] == {"tab": "Compare", "layer": 2, "view": "links"}


def test_a_finished_run_forgets_what_was_switched(monkeypatch):
    session: dict = {}
    monkeypatch.setattr(url.st, "session_state", session)
    monkeypatch.setattr(url.st, "query_params", {})
    url.switch(tab="Model")
    url.start_run()
    url.mirror()
    session["tab"] = "Attention"  # the person chooses another tab afterwards
    url.start_run()
    assert session["tab"] == "Attention" and session[url.SWITCHED] == {}
