"""A light Streamlit client: one app session over the server's own websocket protocol, no browser.

Test and benchmark tooling only (nothing in model/, ui/ or viz/ imports it). A hundred of these
cost the machine little, where a hundred Chromium pages would measure Chromium more than the
server. It speaks what Streamlit's frontend speaks to `/_stcore/stream` (Streamlit 1.67, its
Starlette/uvicorn server; see streamlit/web/server/starlette/starlette_websocket.py and
streamlit/runtime/app_session.py):

- every websocket frame from the server is one serialized `ForwardMsg`, every frame to it one
  `BackMsg` (streamlit.proto);
- nothing runs until the client asks: a `BackMsg.rerun_script` (a `ClientState`) carries the
  page's query string (without "?"), the widget values the client knows and the page's script
  hash. The server answers with `new_session` (a run starts), `delta`s (elements and blocks, each
  at a `metadata.delta_path` in the page tree), `page_info_changed` (the script wrote
  st.query_params: the browser puts it in its URL and sends it back on the next run) and
  `script_finished`;
- a widget's id is in its element proto (`element.<type>.id`, or `block.id` for a keyed
  `st.tabs`); an id made from a user key ends with it (`$$ID-<hash>-<key>`), which is how this
  client finds `key="layer"`;
- a widget change is a new `rerun_script` whose `widget_states` hold the new value, typed as the
  widget's serde expects: a text area, select box, radio or tab bar sends `string_value` (the
  option's label as shown), a select slider `string_array_value` (labels), a toggle `bool_value`.

Like the browser, the client sends on every run all the widget values it has set so far, echoes
the page script hash of the last `new_session` and the query string of the last
`page_info_changed`, and announces no cached messages (so the server never answers with a
`ref_hash` reference). It does not fetch the page's HTML, scripts or styles (a browser fetches
them once and caches them), sends no `context_info` (timezone, locale) and no heartbeats.

    async with StreamlitSession(server_url, "model=minilm-l6") as session:
        await session.rerun()                          # the page's first run
        await session.set_text("text", "A sentence .")
        chart = session.last_chart("attention_heatmap")
        chart.axis_labels("x"), chart.title
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

STREAM_PATH = "/_stcore/stream"
# Generous: on 2 shared cores a run can wait minutes for the server behind a hundred others.
DEFAULT_TIMEOUT_S = 600.0
# Plotly's categorical axes make repeated tokens distinct with invisible suffixes (viz.attention).
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"
# script_finished statuses that end what a rerun request started (FINISHED_EARLY_FOR_RERUN does
# not: another run follows it).
COMPLETED = {
    ForwardMsg.FINISHED_SUCCESSFULLY: "finished",
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error",
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "fragment finished",
}
ERROR_ALERT = 1  # Alert.Format.ERROR: what st.error draws


class SessionError(RuntimeError):
    """The connection closed, or the server did not answer in time."""


def user_key(element_id: str) -> str | None:
    """The user key a widget id was made from ("$$ID-<hash>-<key>"), or None without one.

    The same rule as streamlit.runtime.state.common.user_key_from_element_id."""
    if not element_id.startswith("$$ID-"):
        return None
    key = element_id.split("-", maxsplit=2)[-1]
    return None if key == "None" else key


def plain(label: str) -> str:
    """A Plotly label as a person reads it: HTML entities decoded, invisible suffixes gone."""
    return html.unescape(str(label)).rstrip(INVISIBLE)


def _id_of(proto) -> str:
    """A widget proto's id ("" for a proto without one: a markdown, a plain column)."""
    return proto.id if "id" in proto.DESCRIPTOR.fields_by_name else ""


@dataclass
class Chart:
    """One st.plotly_chart the server sent: its user key, the figure and when it arrived."""

    key: str | None
    spec: dict
    run: int  # index of the run it came in (StreamlitSession.runs)
    received_s: float  # time.monotonic()

    @property
    def title(self) -> str:
        """The figure's title on one line (a wrapped title's <br> read as spaces)."""
        title = self.spec.get("layout", {}).get("title", {})
        text = title.get("text", "") if isinstance(title, dict) else str(title)
        return " ".join(plain(text.replace("<br>", " ")).split())

    def axis_labels(self, axis: str = "x") -> list[str]:
        """The labels along an axis as Plotly draws them: the axis's own tick texts when the
        figure sets them, else the first trace's categories on that axis."""
        layout_axis = self.spec.get("layout", {}).get(f"{axis}axis", {})
        if isinstance(layout_axis.get("ticktext"), list):
            return [plain(t) for t in layout_axis["ticktext"]]
        return self.categories(axis)

    def categories(self, axis: str = "x") -> list[str]:
        """The first trace's categories along an axis, every one (a long axis labels only some
        of them)."""
        for trace in self.spec.get("data", []):
            values = trace.get(axis)
            if isinstance(values, list) and all(isinstance(v, str) for v in values):
                return [plain(v) for v in values]
        return []


@dataclass
class Run:
    """One script run: from its `new_session` to its `script_finished`."""

    index: int
    started_s: float
    finished_s: float | None = None
    status: str | None = None  # a COMPLETED value, "interrupted for a rerun", or None: running
    elements: dict[tuple[int, ...], Any] = field(default_factory=dict)  # delta path -> Element
    blocks: dict[tuple[int, ...], Any] = field(default_factory=dict)  # delta path -> Block
    charts: list[Chart] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # exceptions and st.error alerts

    @property
    def done(self) -> bool:
        return self.status is not None and self.status != "interrupted for a rerun"


class StreamlitSession:
    """One browser tab's worth of Streamlit session, driven from asyncio.

    `url` is the server (http://127.0.0.1:port); `query_string` the page URL's query without
    "?"; `on_frame`, if given, is called with every frame from the server, raw (to look for
    text in any message, not only in what this client decodes). Every method that changes
    something returns the completed `Run` it caused.
    """

    def __init__(
        self,
        url: str,
        query_string: str = "",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        on_frame: Callable[[bytes], None] | None = None,
    ):
        self.url = url.rstrip("/")
        self.on_frame = on_frame  # sees every frame from the server as it arrives, raw
        self.query_string = query_string
        self.timeout_s = timeout_s
        self.session_id: str | None = None
        self.page_script_hash = ""
        self.runs: list[Run] = []
        self.charts: list[Chart] = []
        self.problems: list[str] = []  # every run's problems, and the connection's
        self.opened_s: float | None = None
        self.messages = 0
        self.bytes_received = 0
        self._widgets: dict[str, tuple[str, Any]] = {}  # user key -> (widget id, latest proto)
        self._block_paths: dict[str, tuple[int, ...]] = {}  # user key -> path of its block
        self._values: dict[str, WidgetState] = {}  # widget id -> the value this client set
        self._socket = None
        self._reader: asyncio.Task | None = None
        self._changed = asyncio.Condition()
        self._closed_reason: str | None = None

    async def __aenter__(self) -> StreamlitSession:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    async def connect(self) -> None:
        """Open the websocket as the frontend does: subprotocol "streamlit", same Origin."""
        self.opened_s = time.monotonic()
        origin = urlsplit(self.url)
        self._socket = await connect(
            "ws" + self.url.removeprefix("http") + STREAM_PATH,
            origin=f"{origin.scheme}://{origin.netloc}",  # as a browser sends it: no path
            subprotocols=["streamlit"],
            max_size=None,  # a figure can exceed websockets' 1 MiB default
            ping_interval=None,  # browsers send no pings; the server's own are answered
            open_timeout=self.timeout_s,
            proxy=None,  # loopback only, whatever the environment says
        )
        self._reader = asyncio.create_task(self._read(), name=f"streamlit-read-{id(self)}")

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            await self._reader

    def carry_over(self, page: StreamlitSession, values: bool = True) -> None:
        """Act as `page`'s browser reconnecting to a new session (a server failover): it still
        knows the widgets it drew and, with `values`, sends the values it holds."""
        self._widgets = dict(page._widgets)
        if values:
            self._values = dict(page._values)

    # ---- what the page shows

    def widget(self, key: str):
        """The latest proto of the widget with this user key (an Element's widget or a Block)."""
        if key not in self._widgets:
            known = sorted(self._widgets)
            raise KeyError(f"no widget with key {key!r} has been seen; known: {known}")
        return self._widgets[key][1]

    def tab_labels(self, key: str) -> list[str]:
        """The labels of the keyed st.tabs, from the tab blocks under it in the last run."""
        path = self._block_paths[key]
        for run in reversed(self.runs):
            labels = [
                block.tab.label
                for child, block in sorted(run.blocks.items())
                if child[:-1] == path and block.WhichOneof("type") == "tab"
            ]
            if labels:
                return labels
        raise KeyError(f"no tabs seen under the widget {key!r}")

    def last_chart(self, key: str) -> Chart:
        """The last st.plotly_chart with this user key."""
        for chart in reversed(self.charts):
            if chart.key == key:
                return chart
        raise KeyError(f"no chart with key {key!r} has been received")

    # ---- what the user does

    async def rerun(self) -> Run:
        """Ask for a run with the current query string and widget values; the completed run."""
        message = BackMsg()
        state = message.rerun_script
        state.query_string = self.query_string
        state.page_script_hash = self.page_script_hash
        state.widget_states.widgets.extend(self._values.values())
        runs_before = len(self.runs)
        await self._send(message)

        def completed() -> Run | None:
            for run in self.runs[runs_before:]:
                if run.done:
                    return run
            return None

        return await self.wait_until(completed, "the run to finish")

    async def set_text(self, key: str, text: str) -> Run:
        """Type into a text area or text input and submit it (Ctrl+Enter, or leaving it)."""
        return await self._set(key, "string_value", text)

    async def choose(self, key: str, label: str) -> Run:
        """Pick an option of a select box or radio, or a tab of a keyed st.tabs, by its label."""
        proto = self.widget(key)
        labels = self.tab_labels(key) if key in self._block_paths else list(proto.options)
        if label not in labels:
            raise ValueError(f"{label!r} is not an option of {key!r}: {labels}")
        return await self._set(key, "string_value", label)

    async def slide_to(self, key: str, label: str) -> Run:
        """Move a select slider to the option with this label."""
        options = list(self.widget(key).options)
        if label not in options:
            raise ValueError(f"{label!r} is not an option of {key!r}: {options}")
        return await self._set(key, "string_array_value", [label])

    async def toggle(self, key: str, on: bool) -> Run:
        """Set a checkbox or st.toggle."""
        return await self._set(key, "bool_value", on)

    async def wait_until(self, found: Callable[[], Any], what: str) -> Any:
        """Until `found()` returns something truthy (checked after every message); that."""
        try:
            async with asyncio.timeout(self.timeout_s), self._changed:
                while True:
                    result = found()
                    if result:
                        return result
                    if self._closed_reason is not None:
                        raise SessionError(f"waiting for {what}: {self._closed_reason}")
                    await self._changed.wait()
        except TimeoutError:
            raise SessionError(f"no {what} within {self.timeout_s:.0f} s") from None

    async def wait_for_chart(self, matches: Callable[[Chart], bool], what: str) -> Chart:
        """The first chart received so far (or later) for which `matches` holds."""
        return await self.wait_until(
            lambda: next((chart for chart in self.charts if matches(chart)), None), what
        )

    # ---- the protocol

    async def _set(self, key: str, value_type: str, value) -> Run:
        self.widget(key)  # raises, naming the keys seen, if there is no such widget
        widget_id = self._widgets[key][0]
        state = WidgetState(id=widget_id)
        if value_type == "string_array_value":
            state.string_array_value.data.extend(value)
        else:
            setattr(state, value_type, value)
        self._values[widget_id] = state
        return await self.rerun()

    async def _send(self, message: BackMsg) -> None:
        if self._closed_reason is not None:
            raise SessionError(f"cannot send: {self._closed_reason}")
        await self._socket.send(message.SerializeToString())

    async def _read(self) -> None:
        reason = "the server closed the connection"
        try:
            async for frame in self._socket:
                if self.on_frame is not None:
                    self.on_frame(frame)
                message = ForwardMsg()
                message.ParseFromString(frame)
                self.messages += 1
                self.bytes_received += len(frame)
                self._handle(message)
                async with self._changed:
                    self._changed.notify_all()
        except ConnectionClosed as closed:
            reason = f"the connection closed ({closed})"
        except Exception as err:  # a frame this client cannot read is a failure, not a hang
            reason = f"the client failed to read a message: {err!r}"
            self.problems.append(reason)
        finally:
            self._closed_reason = reason
            async with self._changed:
                self._changed.notify_all()

    def _handle(self, message: ForwardMsg) -> None:
        kind = message.WhichOneof("type")
        now = time.monotonic()
        if kind == "new_session":
            new_session = message.new_session
            self.page_script_hash = new_session.page_script_hash
            if new_session.initialize.session_id:
                self.session_id = new_session.initialize.session_id
            self.runs.append(Run(index=len(self.runs), started_s=now))
        elif kind == "delta":
            self._delta(message, now)
        elif kind == "page_info_changed":
            self.query_string = message.page_info_changed.query_string
        elif kind == "script_finished":
            run = self._current_run("script_finished")
            run.finished_s = now
            run.status = COMPLETED.get(message.script_finished, "interrupted for a rerun")
            if message.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                self._problem(run, "the script failed to compile")
        elif kind == "session_event":
            event = message.session_event
            if event.WhichOneof("type") == "script_compilation_exception":
                exception = event.script_compilation_exception
                self._problem(
                    self._current_run(kind), f"compile error: {exception.type}: {exception.message}"
                )
        elif kind == "ref_hash":  # only sent for hashes the client said it had; this one says none
            self._problem(self._current_run(kind), f"unexpected reference {message.ref_hash}")

    def _current_run(self, what: str) -> Run:
        if not self.runs:  # the server always starts a run with new_session first
            self.runs.append(Run(index=0, started_s=time.monotonic()))
            self.problems.append(f"{what} before any new_session")
        return self.runs[-1]

    def _problem(self, run: Run, text: str) -> None:
        run.problems.append(text)
        self.problems.append(f"run {run.index}: {text}")

    def _delta(self, message: ForwardMsg, now: float) -> None:
        run = self._current_run("delta")
        path = tuple(message.metadata.delta_path)
        delta = message.delta
        if delta.WhichOneof("type") == "add_block":
            block = delta.add_block
            run.blocks[path] = block
            block_type = block.WhichOneof("type")
            widget_id = block.id or (_id_of(getattr(block, block_type)) if block_type else "")
            if widget_id and user_key(widget_id):
                self._widgets[user_key(widget_id)] = (widget_id, block)
                self._block_paths[user_key(widget_id)] = path
            return
        if delta.WhichOneof("type") != "new_element":
            return  # transient elements (spinners) carry nothing this client checks
        element = delta.new_element
        run.elements[path] = element
        element_type = element.WhichOneof("type")
        inner = getattr(element, element_type)
        widget_id = _id_of(inner)
        if widget_id and user_key(widget_id):
            self._widgets[user_key(widget_id)] = (widget_id, inner)
        if element_type == "plotly_chart":
            chart = Chart(
                user_key(widget_id) if widget_id else None, json.loads(inner.spec), run.index, now
            )
            run.charts.append(chart)
            self.charts.append(chart)
        elif element_type == "exception":
            self._problem(run, f"exception: {inner.type}: {inner.message}")
        elif element_type == "alert" and inner.format == ERROR_ALERT:
            self._problem(run, f"error: {inner.body}")
