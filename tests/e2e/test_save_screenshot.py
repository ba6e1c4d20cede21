"""The tours write a README screenshot only where the page changed (issue 45, item 14): before,
every run rewrote all of docs/screenshots/ by a few anti-aliased pixels."""

import io

from PIL import Image

import harness


class FakePage:
    def __init__(self, image: Image.Image):
        self.image = image

    def screenshot(self, **_options) -> bytes:
        out = io.BytesIO()
        self.image.save(out, format="PNG")
        return out.getvalue()


def picture(size=(200, 100), block=None) -> Image.Image:
    image = Image.new("RGB", size, "white")
    for x in range(20, 60):  # something drawn, as on a page
        for y in range(10, 30):
            image.putpixel((x, y), (30, 90, 200))
    if block:
        for x in range(block[0], block[0] + 30):
            for y in range(block[1], block[1] + 20):
                image.putpixel((x, y), (200, 30, 30))
    return image


def test_an_unchanged_page_leaves_the_file_alone(tmp_path):
    path = tmp_path / "tab.png"
    assert harness.save_screenshot(FakePage(picture()), path)
    written = path.read_bytes()
    nudged = picture()
    nudged.putpixel((5, 5), (0, 0, 0))  # one pixel: anti-aliasing, not a change
    nudged.putpixel((25, 15), (40, 100, 210))  # a shade within the tolerance
    assert not harness.save_screenshot(FakePage(nudged), path)
    assert path.read_bytes() == written


def test_a_changed_page_or_size_is_written(tmp_path):
    path = tmp_path / "tab.png"
    harness.save_screenshot(FakePage(picture()), path)
    assert harness.save_screenshot(FakePage(picture(block=(100, 50))), path)
    assert Image.open(path).getpixel((110, 60)) == (200, 30, 30)
    assert harness.save_screenshot(FakePage(picture(size=(200, 120))), path)
    assert Image.open(path).size == (200, 120)
