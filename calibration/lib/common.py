"""Paths and file helpers shared by the calibration scripts.

    sys.path.insert(0, <calibration/lib>); from common import ROOT, CAL, open_text
"""
import gzip
import os

CAL = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # calibration/
ROOT = os.path.dirname(CAL)  # the repository


def open_text(path):
    """Open a text file for reading, or its gzipped copy (PATH.gz) where only that is in the tree
    (large notes and raw outputs are kept compressed: calibration/README.md, "Layout")."""
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt")
    return open(path)
