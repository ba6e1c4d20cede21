"""Time to a rendered heatmap with many students at once: median and 95th percentile.

Starts `streamlit run app.py` on a free loopback port, opens N pages in Debian's Chromium (one
browser process, a context each), types a different sentence in each at once, and times each page
from submit to its heatmap showing its own tokens. Also reports the server's RSS before and after.

    .venv/bin/python bench/load.py [--pages 20] [--model minilm-l6]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import harness
from runtime.pretrained import minilm_tokenizer
from runtime.registry import translator_tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--model", default="minilm-l6", choices=["minilm-l6", "paper-untrained"])
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    sentences = harness.load_sentences(args.pages)
    tokenizer = minilm_tokenizer() if args.model == "minilm-l6" else translator_tokenizer()
    expected = [list(tokenizer.encode(s, 512).tokens) for s in sentences]
    with tempfile.TemporaryDirectory() as logs, harness.running_server(Path(logs)) as server:
        with sync_playwright() as playwright:
            browser = harness.launch_chromium(playwright)
            result = harness.run_load(browser, server, sentences, expected, args.model)
            browser.close()
    report = harness.summary(result.seconds) | {
        "pages": args.pages,
        "model": args.model,
        "rss_before_mib": round(result.rss_before / 2**20),
        "rss_after_mib": round(result.rss_after / 2**20),
        "problems": result.problems,
    }
    print(json.dumps(report, indent=1))
    if result.problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
