"""The comparison every hidden test makes; its source is copied into each generated test (the autograder's
tests run without this folder), so it imports what it needs itself and quotes the annotations it cannot."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable


def compare_with_reference(
    student: "Callable", reference: "Callable", cases: list[tuple], gradients: bool = False
) -> None:
    """Call ``student`` and ``reference`` on a copy of each case's arguments; require the same results and
    the same arguments afterwards (in-place updates), and with ``gradients`` the same input gradients."""
    import copy

    import numpy as np

    def plain(value):
        if hasattr(value, "detach"):  # a torch tensor
            return value.detach().cpu().numpy()
        if isinstance(value, list | tuple):
            return [plain(item) for item in value]
        return value

    def same(got, want, where):
        got, want = plain(got), plain(want)
        if want is None or got is None:
            assert got is None and want is None, f"{where}: expected {want!r}, got {got!r}"
            return
        if isinstance(want, str):  # an argument such as an environment's id
            assert got == want, f"{where}: expected {want!r}, got {got!r}"
            return
        try:
            expected = np.asarray(want, dtype=np.float64)
        except ValueError:  # ragged: compare item by item
            assert isinstance(got, list) and len(got) == len(want), f"{where}: expected {len(want)} items"
            for position, (got_item, want_item) in enumerate(zip(got, want, strict=True)):
                same(got_item, want_item, f"{where}[{position}]")
            return
        result = np.asarray(got, dtype=np.float64)
        assert result.shape == expected.shape, f"{where}: expected shape {expected.shape}, got {result.shape}"
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6, err_msg=where)

    for number, args in enumerate(cases):
        mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
        got, want = student(*mine), reference(*theirs)
        same(got, want, f"case {number}: the result")
        same(list(mine), list(theirs), f"case {number}: the arguments after the call")
        if gradients:
            weights = np.arange(len(plain(want)), dtype=np.float32)
            for output in (got, want):
                (output * output.new_tensor(weights)).sum().backward()
            same([x.grad for x in mine], [x.grad for x in theirs], f"case {number}: the gradient of the input")
