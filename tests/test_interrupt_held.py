"""``_interrupt.held``: signals wait until a compiled call (possibly compiling) has returned."""

from __future__ import annotations

import os
import signal

import pytest

from gobnilp_py._interrupt import held


def test_a_signal_inside_the_block_is_delivered_after_it():
    seen = []
    with pytest.raises(KeyboardInterrupt):
        with held():
            os.kill(os.getpid(), signal.SIGINT)
            seen.append("block finished")       # the handler did not run inside the block
    assert seen == ["block finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_handlers_are_restored_and_ignored_signals_stay_ignored():
    old = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with held():
            os.kill(os.getpid(), signal.SIGTERM)  # ignored before: stays ignored, nothing delivered
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, old)
    calls = []
    prev = signal.signal(signal.SIGTERM, lambda s, f: calls.append(s))
    try:
        with held():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            assert calls == []
        assert calls == [signal.SIGTERM]            # the first one, once, to the restored handler
    finally:
        signal.signal(signal.SIGTERM, prev)
