"""Ctrl-C interrupts a run (the GIL is released; the caller wakes for signals)."""

import signal
import subprocess
import sys
import time

CHILD = """
import sys, warpsim
print("started", flush=True)
warpsim.run(sys.argv[1], defines={"N": 4096})
print("finished", flush=True)
"""


def test_ctrl_c_interrupts_a_run(root):
    p = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root / "programs/transpose.ron")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stdout.readline().strip() == "started"
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = p.communicate(timeout=60)
    waited = time.monotonic() - sent
    assert "finished" not in out, "the run ended before the signal: make it longer"
    assert "KeyboardInterrupt" in err
    assert waited < 5, f"{waited:.1f} s from Ctrl-C to the exception"
