"""model/net/device.py: the device the command lines choose for networks."""

import pytest

torch = pytest.importorskip("torch")

from model.net.device import choose_device, learner_threads


def test_auto_cpu_and_threads():
    """auto is cuda exactly when there is a CUDA device; the thread count is set (0: one per core)."""
    before = torch.get_num_threads()
    try:
        assert choose_device("auto", 1) == ("cuda" if torch.cuda.is_available() else "cpu")
        assert torch.get_num_threads() == 1
        assert choose_device("cpu", 2) == "cpu" and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("name, message", [("gpu", "not a torch device"), ("cuda:99", "CUDA device")])
def test_a_device_that_cannot_be_used_is_a_value_error(name, message):
    """A name torch does not know, or a CUDA device this machine does not have: ValueError saying so."""
    before = torch.get_num_threads()
    try:
        with pytest.raises(ValueError, match=message):
            choose_device(name, 1)
    finally:
        torch.set_num_threads(before)


def test_without_torch_networks_run_on_the_cpu(monkeypatch):
    """On the plain install (no torch) auto and cpu are the CPU, where networks run in numpy; asking for
    any other device is a ValueError that names the [train] extra."""
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)
    assert choose_device("auto", 1) == "cpu" and choose_device("cpu") == "cpu"
    with pytest.raises(ValueError, match=r"needs torch \(the \[train\] extra\)"):
        choose_device("cuda")


def test_learner_threads_leave_the_local_actors_their_cores(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert learner_threads(0) == 8  # no actors here: every core
    assert learner_threads(0, 3) == 5  # three actors on this machine keep three cores
    assert learner_threads(0, 8) == 1 and learner_threads(0, 20) == 1  # never fewer than one
    assert learner_threads(4, 3) == 4  # --threads given wins
