"""Read the layout of every Plotly figure on a page from the browser's DOM.

Plotly draws each figure as SVG; every piece of text (titles, tick labels, axis titles, legend
and colour-bar text, annotations, numbers in heatmap cells) is a `<text>` element whose box the
browser knows exactly, rotation included. From those boxes this module finds what a person in
the back row would see as broken: two texts printed over each other, text cut off by the figure
or by the page, text too small to read, and legends, colour bars or Plotly's toolbar covering
text.
"""

from __future__ import annotations

from dataclasses import dataclass

import harness

# One function run in the page. Boxes are compared as rotated rectangles (the four corners of
# each element's own box mapped to the screen), so tick labels turned by 30° or 45° are not
# reported as overlapping when only their axis-aligned hulls touch.
PROBE = r"""
(minFont) => {
  const TOLERANCE = 1.0;  // px: anti-aliasing and rounding, not an overlap anyone can see
  const viewportWidth = document.documentElement.clientWidth;
  const problems = [];
  const visible = (el) => {
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') {
        return false;
      }
    }
    return true;
  };
  const corners = (el) => {
    const box = el.getBBox();
    const m = el.getScreenCTM();
    if (!m || box.width === 0 || box.height === 0) return null;
    const pts = [[box.x, box.y], [box.x + box.width, box.y],
                 [box.x + box.width, box.y + box.height], [box.x, box.y + box.height]];
    return pts.map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const axes = (poly) => poly.map((p, i) => {
    const q = poly[(i + 1) % poly.length];
    const len = Math.hypot(q[0] - p[0], q[1] - p[1]) || 1;
    return [-(q[1] - p[1]) / len, (q[0] - p[0]) / len];
  });
  const overlap = (a, b) => {  // separating axis theorem, with a tolerance in px
    for (const [ax, ay] of [...axes(a), ...axes(b)]) {
      const pa = a.map(([x, y]) => x * ax + y * ay);
      const pb = b.map(([x, y]) => x * ax + y * ay);
      const depth = Math.min(Math.max(...pa), Math.max(...pb)) -
                    Math.max(Math.min(...pa), Math.min(...pb));
      if (depth <= TOLERANCE) return false;
    }
    return true;
  };
  const charts = [...document.querySelectorAll('.js-plotly-plot')]
    .filter((c) => c.getBoundingClientRect().width > 0 && visible(c));
  charts.forEach((chart, index) => {
    const titleNode = chart.querySelector('.gtitle');
    const figure = (titleNode ? titleNode.textContent : '') || `figure ${index + 1}`;
    const svg = chart.querySelector('svg.main-svg');
    if (!svg) return;
    const frame = svg.getBoundingClientRect();
    if (frame.right > viewportWidth + TOLERANCE) {
      problems.push({figure, kind: 'figure wider than the page', text: '',
                     detail: `right edge ${Math.round(frame.right)} > ${viewportWidth}`});
    }
    const texts = [];
    for (const el of chart.querySelectorAll('text')) {
      if (el.closest('.hoverlayer') || !el.textContent.trim() || !visible(el)) continue;
      const poly = corners(el);
      if (!poly) continue;
      const m = el.getScreenCTM();
      const size = parseFloat(getComputedStyle(el).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
      const group = el.closest('.legend') ? 'legend' : el.closest('.colorbar') ? 'colorbar' : '';
      texts.push({el, poly, size, group, text: el.textContent.trim().slice(0, 60)});
    }
    for (const t of texts) {
      if (t.size < minFont - 0.01) {
        problems.push({figure, kind: 'text too small', text: t.text,
                       detail: `${t.size.toFixed(1)} px < ${minFont} px`});
      }
      const xs = t.poly.map((p) => p[0]), ys = t.poly.map((p) => p[1]);
      if (Math.min(...xs) < frame.left - TOLERANCE || Math.max(...xs) > frame.right + TOLERANCE ||
          Math.min(...ys) < frame.top - TOLERANCE || Math.max(...ys) > frame.bottom + TOLERANCE) {
        problems.push({figure, kind: 'text cut off by the figure', text: t.text, detail: ''});
      } else if (Math.min(...xs) < -TOLERANCE || Math.max(...xs) > viewportWidth + TOLERANCE) {
        problems.push({figure, kind: 'text cut off by the page', text: t.text, detail: ''});
      }
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        if (overlap(texts[i].poly, texts[j].poly)) {
          problems.push({figure, kind: 'texts overlap', text: texts[i].text,
                         detail: `over "${texts[j].text}"`});
        }
      }
    }
    // Plotly's toolbar shows over the figure's top right on hover: it must not lie on the title
    // (issue 66: it hid the end of "encoder-decoder (cross) attention" at both screen sizes).
    const modebar = chart.querySelector('.modebar');
    const toolbar = modebar && getComputedStyle(modebar).display !== 'none'
      ? modebar.getBoundingClientRect() : null;
    if (toolbar && toolbar.width > 0) {
      const bar = [[toolbar.left, toolbar.top], [toolbar.right, toolbar.top],
                   [toolbar.right, toolbar.bottom], [toolbar.left, toolbar.bottom]];
      for (const t of texts) {
        if (t.el.closest('.gtitle, .g-gtitle') && overlap(bar, t.poly)) {
          problems.push({figure, kind: 'toolbar covers the title', text: t.text, detail: ''});
        }
      }
    }
    // Legend and colour-bar backgrounds that cover text outside them.
    const boxes = [...chart.querySelectorAll('.legend .bg, .colorbar .cbfill, .colorbar .cbbg')]
      .filter(visible).map((el) => ({el, poly: corners(el),
                                     group: el.closest('.legend') ? 'legend' : 'colorbar'}))
      .filter((b) => b.poly);
    for (const b of boxes) {
      for (const t of texts) {
        if (t.group !== b.group && overlap(b.poly, t.poly)) {
          problems.push({figure, kind: `${b.group} covers text`, text: t.text, detail: ''});
        }
      }
    }
  });
  return problems;
}
"""


@dataclass(frozen=True)
class LayoutProblem:
    figure: str
    kind: str
    text: str
    detail: str

    def __str__(self) -> str:
        figure = " ".join(self.figure.split())[:80]
        text = f' "{self.text}"' if self.text else ""
        return f"[{figure}] {self.kind}:{text} {self.detail}".rstrip()


def layout_problems(page, min_font_px: float) -> list[LayoutProblem]:
    """Every layout problem of the visible Plotly figures on `page` (see the module docstring)."""
    return [LayoutProblem(**p) for p in page.evaluate(PROBE, min_font_px)]


def settled_layout_problems(page, min_font_px: float, attempts: int = 5) -> list[str]:
    """The layout problems once Plotly has settled: it may lay a figure out again after its first
    draw (automatic margins, or a width Streamlit measures a frame later), so the page is read
    once it is still (`harness.wait_still`), and again if it changed during the reading. (A fixed
    400 ms wait between two readings did this before: 73 s of a run.)"""
    for _ in range(attempts):
        still_since = harness.wait_still(page)
        problems = sorted({str(p) for p in layout_problems(page, min_font_px)})
        if not harness.changed_since(page, still_since):
            return problems
    raise AssertionError(f"the page changed during each of {attempts} readings of its layout")


# Streamlit draws a select box's chosen option as the value of an <input> that scrolls instead
# of wrapping: an option wider than the box is silently cut ("encoder-decoder (cross) a").
# A table's grid sizes each column to its header and never wraps it: columns past the box's
# edge hide behind a scroll bar (the statistics tables at 1280, issue 45 item 9); an HTML table
# wider than its box scrolls too.
WIDGET_PROBE = r"""
() => {
  const TOLERANCE = 1.0;
  const viewportWidth = document.documentElement.clientWidth;
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.right > 0 && box.left < viewportWidth;  // a closed sidebar is off-page
  };
  const boxes = [...document.querySelectorAll('[data-testid="stSelectbox"]')].filter(shown);
  const problems = [];
  for (const box of boxes) {
    const label = (box.querySelector('[data-testid="stWidgetLabel"]') || {}).textContent || '';
    for (const input of box.querySelectorAll('input')) {
      if (input.scrollWidth > input.clientWidth + TOLERANCE) {
        problems.push({figure: `select box "${label.trim()}"`, kind: 'option cut off',
                       text: input.value, detail: `${input.scrollWidth} px in ${input.clientWidth} px`});
      }
    }
  }
  const tables = [...document.querySelectorAll('[data-testid="stDataFrame"], [data-testid="stTable"]')]
    .filter((t) => shown(t) && t.checkVisibility());
  for (const table of tables) {
    const scroller = table.querySelector('.dvn-scroller') || table;
    if (scroller.scrollWidth > scroller.clientWidth + TOLERANCE) {
      const cells = [...table.querySelectorAll('[role="columnheader"], th')].map((c) => c.textContent.trim());
      const header = cells.filter(Boolean).slice(0, 4).join(', ');
      problems.push({figure: `table "${header}"`, kind: 'columns cut off',
                     text: '', detail: `${scroller.scrollWidth} px in ${scroller.clientWidth} px`});
    }
  }
  return {checked: boxes.length, problems};
}
"""


def widget_problems(page) -> tuple[int, list[LayoutProblem]]:
    """(how many visible select boxes were read, the ones whose chosen option is cut off and
    the tables whose columns are)."""
    found = page.evaluate(WIDGET_PROBE)
    return found["checked"], [LayoutProblem(**p) for p in found["problems"]]


# WCAG 2's contrast ratio of every visible caption's text against what it is drawn on (its
# nearest ancestor with a background, white where none), alpha blended as the browser does:
# the text's own alpha times every ancestor's opacity (Streamlit fades captions with opacity
# 0.6, not with their colour).
CAPTION_PROBE = """() => {
  const rgba = s => (s.match(/[\\d.]+/g) || []).map(Number).concat([1]).slice(0, 4);
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
  const lum = c => {
    const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = el => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const c = rgba(getComputedStyle(node).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] === 1) break;
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255]);
  };
  const found = [];
  for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
    if (!caption.checkVisibility() || !caption.innerText.trim()) continue;
    for (const el of [caption, ...caption.querySelectorAll('*')]) {
      if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
      const bg = background(el);
      const color = rgba(getComputedStyle(el).color);
      for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
        color[3] *= Number(getComputedStyle(node).opacity);
      }
      const fg = over(color, bg);
      const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      found.push({text: el.innerText.slice(0, 60), ratio: (hi + 0.05) / (lo + 0.05)});
    }
  }
  return found;
}"""
CAPTION_CONTRAST = 4.5  # WCAG 2 AA for body text


def caption_problems(page) -> tuple[int, list[LayoutProblem]]:
    """(how many caption texts were read, those under WCAG AA contrast): a projector washes
    out light grey (issue 66, item 3)."""
    found = page.evaluate(CAPTION_PROBE)
    low = [
        LayoutProblem("caption", "low contrast", f["text"], f"{f['ratio']:.2f}:1")
        for f in found
        if f["ratio"] < CAPTION_CONTRAST
    ]
    return len(found), low
