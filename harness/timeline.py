"""What a page and its server said to each other, for a failed browser test's report (issue 68).

A hang that a test meets once in twenty runs cannot be replayed at will: the report has to hold
what happened. The demo hang left the server idle with the link on tab=Compare while the browser
showed an empty Attention tab; the page's state alone could not say which side lost the tab. So
each watched page keeps a short timeline of the websocket (every script run, its end, each tab
bar the server drew with the tab it opens, the link it wrote, each rerun the browser asked for
and what it carried) and, from the page itself, every change of the tab bar's selected tab.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

# Enough for the last few script runs of a page (a run is a dozen entries).
KEPT = 200

# Installed in every watched page before its scripts: the tab bar's tabs and the selected one,
# each time a tab is selected or unselected, in the page's own clock (ms since the page started).
# Only the aria-selected attribute is watched: an observer of every change to the page cost the
# browser tests 15-25% of their time (Plotly's figures change the page a great deal).
TAB_BAR_LOG = """(() => {
    window.__tabBarLog = [];
    const look = () => {
        const tabs = [...document.querySelectorAll('[role="tab"]')];
        const chosen = tabs.filter(t => t.getAttribute('aria-selected') === 'true')
            .map(t => t.textContent).join(',');
        const now = `${tabs.length} tabs, selected: ${chosen || 'none'}`;
        const log = window.__tabBarLog;
        if (!log.length || log[log.length - 1][1] !== now) {
            log.push([Math.round(performance.now()), now]);
            if (log.length > 100) log.shift();
        }
    };
    new MutationObserver(look).observe(document, {
        subtree: true, attributes: true, attributeFilter: ['aria-selected'],
    });
})();"""


@dataclass
class Timeline:
    """The page's websocket in words, newest last (`KEPT` entries at most)."""

    started: float = field(default_factory=time.monotonic)
    entries: deque = field(default_factory=lambda: deque(maxlen=KEPT))

    def received(self, message: ForwardMsg) -> None:
        said = describe_forward(message)
        if said:
            self._note("server: " + said)

    def sent(self, payload) -> None:
        if not isinstance(payload, bytes):
            return
        message = BackMsg()
        message.ParseFromString(payload)
        said = describe_back(message)
        if said:
            self._note("browser: " + said)

    def _note(self, what: str) -> None:
        self.entries.append(f"{time.monotonic() - self.started:8.3f} s  {what}")

    def tab_bar_paths(self) -> list[str]:
        """Where in the page each tab bar the server drew stood, in order (e.g. "[0, 1]")."""
        return [
            line.split("tab bar at ")[1].split("]")[0] + "]"
            for line in self.entries
            if "tab bar at " in line
        ]

    def text(self) -> str:
        return "\n".join(self.entries) or "(nothing heard)"


def describe_forward(message: ForwardMsg) -> str | None:
    """A message from the server in one line, or None for what the report leaves out (elements
    other than the tab bar: a figure's delta would drown the rest)."""
    kind = message.WhichOneof("type")
    if kind == "new_session":
        return "a script run starts"
    if kind == "script_finished":
        return f"the run ends ({ForwardMsg.ScriptFinishedStatus.Name(message.script_finished)})"
    if kind == "page_info_changed":
        return f"link ?{message.page_info_changed.query_string}"
    if kind != "delta" or message.delta.WhichOneof("type") != "add_block":
        return None
    block = message.delta.add_block
    path = list(message.metadata.delta_path)
    if block.WhichOneof("type") == "tab_container":
        return f"tab bar at {path}, opening tab {block.tab_container.default_tab_index}"
    if block.WhichOneof("type") == "tab":
        return f"tab {path[-1]} ({block.tab.label})"
    return None


def describe_back(message: BackMsg) -> str | None:
    """A rerun the browser asked for, in one line: its link and the values it carried for the
    tab bar and for any button or popover (the widgets that move a view)."""
    if message.WhichOneof("type") != "rerun_script":
        return None
    rerun = message.rerun_script
    carried = []
    for widget in rerun.widget_states.widgets:
        value = widget.WhichOneof("value")
        name = widget.id.rsplit("-", 1)[-1]
        if value == "trigger_value" or name in ("tab", "scene_gallery"):
            carried.append(f"{name}={getattr(widget, value) if value else None}")
    return f"rerun ?{rerun.query_string} with {', '.join(carried) or 'no moving widget'}"
