"""Demo scenes: example sentences a lecturer opens with one click, and steps through as a lesson.

The scenes live in a data file (`scenes.toml`, one `[[scene]]` table each) so a lecturer can add
their own without touching code. A scene sets the model and the text, and optionally the view
(tab, attention view, kind, layer, head). Layer and head are written from 1 in the file, as people
read them and as the URL holds them; the session keys count from 0. Any other view setting (the √d_k
comparison, the paper's figures, ...) is a `settings` table of URL parameter names and values,
written as they stand in the page's URL (a value the view cannot use falls back to its default).

The step number (from 1) is the session key "scene", mirrored in the URL, so a link to a step of
a lesson reopens it. Scenes are applied only in callbacks: a reload keeps what the URL says, even
if the lecturer changed the text after choosing the scene.
"""

from __future__ import annotations

import tomllib
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from runtime.registry import MODELS
from viz.style import KIND_LABELS

from .atlas_tab import TAB_LABEL as ATLAS_TAB
from .attention_tab import VIEWS
from .attribution_tab import TAB_LABEL as ATTRIBUTION_TAB
from .paper_tab import ATTENTION_TAB, POSITIONAL_TAB, SCALING_TAB
from .paper_tab import TAB_LABEL as PAPER_TAB
from .text import escape_markdown
from .url import DECLARED, UrlKey, switch, url_text

SCENE = UrlKey("scene", int, in_url=lambda step: step is not None)  # the lesson step, from 1

SCENES_FILE = Path(__file__).with_name("scenes.toml")

# The page's tabs, in app.py's order (tests/ui/test_scenes.py checks them against the page).
TAB_LABELS = (
    ATTENTION_TAB,
    "Heads & rollout",
    ATLAS_TAB,
    "Ablation",
    "Compare",
    ATTRIBUTION_TAB,
    POSITIONAL_TAB,
    SCALING_TAB,
    "Model",
    PAPER_TAB,
)

REQUIRED_FIELDS = ("title", "model", "text")
OPTIONAL_FIELDS = ("note", "tab", "view", "kind", "layer", "head", "settings")
# Settings a scene may not write through `settings`: those it has a checked field for, and the
# page-wide ones a lesson step must not change (presentation mode, the step itself).
RESERVED_SETTINGS = frozenset(
    {"model", "text", "tab", "view", "kind", "layer", "head", "scene", "present"}
)


class SceneError(ValueError):
    """The scenes file cannot be used; the message names the scene and the field to fix."""


@dataclass(frozen=True)
class Scene:
    """One example: what to type, on which model, and where to look. Layer and head from 1."""

    title: str
    model: str
    text: str
    note: str = ""
    tab: str | None = None
    view: str | None = None
    kind: str | None = None
    layer: int | None = None
    head: int | None = None
    settings: tuple[tuple[str, str | int | bool], ...] = ()

    @property
    def sets_attention_view(self) -> bool:
        return any(v is not None for v in (self.view, self.kind, self.layer, self.head))


def load_scenes(path: Path | None = None) -> list[Scene]:
    """Read and check the scenes file (read on every run, so a lecturer's edit shows at once);
    any problem raises SceneError with a message that says what to fix."""
    path = path or SCENES_FILE
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as err:
        raise SceneError(f"cannot read the scenes file {path.name}: {err.strerror}") from None
    return parse_scenes(source, path.name)


def parse_scenes(source: str, file_name: str = "scenes.toml") -> list[Scene]:
    """The scenes of a TOML text, checked field by field (unknown fields are typos, not ignored)."""
    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as err:
        raise SceneError(f"{file_name} is not valid TOML: {err}") from None
    extra = set(data) - {"scene"}
    if extra:
        raise SceneError(
            f"{file_name}: unexpected top-level key(s) {', '.join(sorted(extra))}; "
            "write each scene as a [[scene]] table"
        )
    tables = data.get("scene")
    if not isinstance(tables, list) or not tables:
        raise SceneError(f"{file_name} has no scenes; write each one as a [[scene]] table")
    return [_scene(table, f"{file_name}, scene {i}") for i, table in enumerate(tables, start=1)]


def _scene(table: Any, where: str) -> Scene:
    if not isinstance(table, dict):
        raise SceneError(f"{where}: a scene must be a [[scene]] table")
    unknown = set(table) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)
    if unknown:
        allowed = ", ".join(REQUIRED_FIELDS + OPTIONAL_FIELDS)
        raise SceneError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}; use {allowed}")
    for field in REQUIRED_FIELDS:
        value = table.get(field)
        if not isinstance(value, str) or not value.strip():
            raise SceneError(f"{where}: {field!r} is required and must be a non-empty string")
    title = table["title"]
    where = f"{where} ({title!r})"
    for field in ("note", "tab", "view", "kind"):
        if field in table and not isinstance(table[field], str):
            raise SceneError(f"{where}: {field!r} must be a string")
    _check_choice(where, "model", table["model"], MODELS)
    _check_choice(where, "tab", table.get("tab"), TAB_LABELS)
    _check_choice(where, "view", table.get("view"), VIEWS)
    _check_choice(where, "kind", table.get("kind"), KIND_LABELS)
    for field in ("layer", "head"):
        value = table.get(field)
        if value is not None and (type(value) is not int or value < 1):
            raise SceneError(f"{where}: {field!r} must be a whole number from 1 (as people count)")
    settings = table.get("settings", {})
    if not isinstance(settings, dict):
        raise SceneError(f"{where}: 'settings' must be a table, e.g. settings = {{ scale = 1 }}")
    for key, value in settings.items():
        if key in RESERVED_SETTINGS:
            raise SceneError(f"{where}: settings.{key}: set it with the scene's own field")
        if type(value) not in (str, int, bool):
            raise SceneError(
                f"{where}: settings.{key} must be a string, a whole number or true/false"
            )
    return Scene(
        title=title,
        model=table["model"],
        text=table["text"],
        note=table.get("note", ""),
        tab=table.get("tab"),
        view=table.get("view"),
        kind=table.get("kind"),
        layer=table.get("layer"),
        head=table.get("head"),
        settings=tuple(settings.items()),
    )


def _check_choice(where: str, field: str, value: str | None, choices) -> None:
    if value is not None and value not in choices:
        raise SceneError(
            f"{where}: {field} {value!r} does not exist; choose one of: {', '.join(choices)}"
        )


def fit_problems(scene: Scene, n_layers: int, n_heads: int, kinds) -> list[str]:
    """What in `scene` the model cannot show (a layer, head or kind it does not have)."""
    problems = []
    if scene.layer is not None and scene.layer > n_layers:
        problems.append(f"layer {scene.layer}: {scene.model} has {n_layers} layers")
    if scene.head is not None and scene.head > n_heads:
        problems.append(f"head {scene.head}: {scene.model} has {n_heads} heads")
    if scene.kind is not None and scene.kind not in kinds:
        problems.append(f"kind {scene.kind}: {scene.model} has only {', '.join(kinds)}")
    if scene.view == "decoding" and "cross" not in kinds:
        problems.append(f"view decoding: {scene.model} has no decoder")
    return problems


def apply_scene(scene: Scene, session: MutableMapping[str, Any]) -> None:
    """Write the scene into the session keys the page's widgets read (layer and head from 0;
    the other settings are read as the page reads them from its URL).

    A scene that sets part of the attention view without naming a tab opens the Attention tab,
    where that view is drawn.
    """
    values: dict[str, Any] = {"model": scene.model, "text": scene.text}
    if scene.tab is not None:
        values["tab"] = scene.tab
    elif scene.sets_attention_view:
        values["tab"] = ATTENTION_TAB
    if scene.view is not None:
        values["view"] = scene.view
    if scene.kind is not None:
        values["kind"] = scene.kind
    if scene.layer is not None:
        values["layer"] = scene.layer - 1
    if scene.head is not None:
        values["head"] = scene.head - 1
    for name, value in scene.settings:
        values[name] = _as_in_url(name, value)
    switch(session, **values)


def _as_in_url(name: str, value: str | int | bool) -> Any:
    """A setting written as the page's URL writes it (a layer or head from 1), read as the page
    reads its URL; one the key's parser rejects is left for the view's own check to replace."""
    key = DECLARED.get(name)
    if key is None:
        return value
    try:
        return key.parse(url_text(value))
    except (TypeError, ValueError):
        return value


def go_to(scenes: list[Scene], step: int | None, session: MutableMapping[str, Any]) -> None:
    """Open step `step` (from 1) of the lesson; None or a step outside it changes nothing."""
    if step is None or not 1 <= step <= len(scenes):
        return
    switch(session, scene=step)
    apply_scene(scenes[step - 1], session)


def neighbours(step: int | None, count: int) -> tuple[int | None, int | None]:
    """The steps Back and Next lead to (None: the button has nowhere to go)."""
    if step is None:
        return None, (1 if count else None)
    back = step - 1 if step > 1 else None
    forward = step + 1 if step < count else None
    return back, forward


def sidebar(path: Path | None = None) -> None:
    """The scene chooser with Back and Next, its step mirrored in the URL.

    Call it inside the sidebar. A broken scenes file shows its error here and the page goes on.
    """
    try:
        scenes = load_scenes(path or SCENES_FILE)
    except SceneError as err:
        # The message quotes the file, which is data: shown as text, never as Markdown.
        st.error(f"The demo scenes cannot be shown: {escape_markdown(str(err))}")
        return
    SCENE.seed(None, valid=lambda v: v is None or 1 <= v <= len(scenes))
    st.selectbox(
        "Demo scene",
        list(range(1, len(scenes) + 1)),
        index=None,
        format_func=lambda step: f"{step}. {scenes[step - 1].title}",
        placeholder="Choose an example…",
        key=SCENE.name,
        on_change=_on_choose,
        args=(scenes,),
    )
    step = st.session_state[SCENE.name]
    back, forward = neighbours(step, len(scenes))
    buttons = (("◀ Back", "scene_back", back, "Left"), ("Next ▶", "scene_next", forward, "Right"))
    for column, (label, key, target, shortcut) in zip(st.columns(2), buttons):
        column.button(
            label,
            key=key,
            disabled=target is None,
            on_click=go_to,
            args=(scenes, target, st.session_state),
            width="stretch",
            shortcut=shortcut,
        )
    if step is None:
        if "scene" in st.query_params:  # a step the file no longer has
            del st.query_params[SCENE.name]
        return
    scene = scenes[step - 1]
    if scene.note:
        st.caption(f"{step}/{len(scenes)}: {escape_markdown(scene.note)}")


GALLERY_KEY = "scene_gallery"


def gallery(where) -> None:
    """Every scene one click away in the page itself (`where`: the heading's row), for
    presentation mode, where the sidebar starts folded away: "Demo scenes", then the scene."""
    try:
        scenes = load_scenes(SCENES_FILE)
    except SceneError:
        return  # the sidebar says what is wrong with the file
    # A key and a tracked open state let choosing a scene close the list again.
    with where.popover(
        "Demo scenes",
        icon=":material/play_lesson:",
        type="tertiary",
        key=GALLERY_KEY,
        on_change="rerun",
    ):
        for step, scene in enumerate(scenes, start=1):
            st.button(
                f"{step}. {scene.title}",
                key=f"scene_gallery_{step}",
                on_click=_open_from_gallery,
                args=(scenes, step),
                type="tertiary",
            )


def _open_from_gallery(scenes: list[Scene], step: int) -> None:
    st.session_state[GALLERY_KEY] = False  # the class should see the scene, not the list
    go_to(scenes, step, st.session_state)


def _on_choose(scenes: list[Scene]) -> None:
    go_to(scenes, st.session_state.get("scene"), st.session_state)
