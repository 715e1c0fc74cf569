#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Prints what the plot tests check of each image: 'FILE WIDTH HEIGHT COLOURS' for a
PNG (pixels, distinct colours: a blank or one-colour image has 1 or 2), 'FILE svg' or
'FILE pdf' for a file that starts like one, 'FILE ?' otherwise.

usage: tests/image_info.py FILE...
"""
import sys

import matplotlib.image as mpimg
import numpy as np

for path in sys.argv[1:]:
    with open(path, "rb") as f:
        head = f.read(256)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        img = mpimg.imread(path)
        rgba = (np.atleast_3d(img) * 255).astype(np.uint8)
        # one integer per pixel: np.unique over rows would be ten times slower
        packed = np.zeros(rgba.shape[:2], dtype=np.uint32)
        for c in range(rgba.shape[2]):
            packed = packed << 8 | rgba[:, :, c]
        print(path, img.shape[1], img.shape[0], len(np.unique(packed)))
    elif head.startswith(b"%PDF-"):
        print(path, "pdf")
    elif b"<svg" in head:
        print(path, "svg")
    else:
        print(path, "?")
