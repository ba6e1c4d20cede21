"""What runtime/loaded.py reads from a model's sidecar about its cross-attention heads: the best
held-out head, the head alignment supervision trained (if any), the best of the others, and the
note the page shows about them."""

from types import SimpleNamespace

from runtime.loaded import (
    best_unsupervised_head,
    held_out_best_head,
    supervised_head,
    supervised_head_note,
)

PER_HEAD = [[0.9, 0.8, 0.7], [0.05, 0.6, 0.9]]  # layer 2 head 1 best, then layer 2 head 2


def loaded(align_head=None, per_head=PER_HEAD):
    recipe = {"name": "t"} if align_head is None else {"name": "t", "align_head": align_head}
    best = min(
        ((i + 1, j + 1, v) for i, row in enumerate(per_head) for j, v in enumerate(row)),
        key=lambda t: t[2],
    )
    metrics = {
        "alignment_error_rate": {
            "per_head": per_head,
            "sentences": 500,
            "best": {"layer": best[0], "head": best[1], "value": best[2]},
        }
    }
    return SimpleNamespace(info={"training": {"recipe": recipe}, "metrics": metrics})


def test_the_supervised_head_is_read_1_based_and_returned_0_based():
    assert supervised_head(loaded([2, 1])) == (1, 0)
    assert supervised_head(loaded()) is None
    assert supervised_head(SimpleNamespace(info={})) is None


def test_the_best_unsupervised_head_leaves_the_supervised_one_out():
    with_supervision = best_unsupervised_head(loaded([2, 1]))
    assert (with_supervision.layer, with_supervision.head, with_supervision.aer) == (1, 1, 0.6)
    without = best_unsupervised_head(loaded())
    assert (without.layer, without.head, without.aer) == (1, 0, 0.05)
    assert held_out_best_head(loaded([2, 1])).aer == 0.05


def test_the_note_names_the_trained_head_and_the_best_that_learned_alone():
    note = supervised_head_note(loaded([2, 1]))
    assert note.startswith("Layer 2, head 1 was trained to align")
    assert "AER 0.050 over 500 held-out sentences" in note
    assert "layer 2, head 2, scores AER 0.600" in note
    assert supervised_head_note(loaded()) is None
