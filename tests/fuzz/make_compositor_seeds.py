#!/usr/bin/env python3
"""Writes the seeds of fuzz_compositor_requests: scripts of a well-behaved
client that map a window through each path uda-compositor takes (wl_shm,
uda's protocol, linux-dmabuf), so the fuzzer starts from sessions that
reach the repaint and mutates from there.

The bytes follow fuzz_compositor_requests.c's reading of a script; the
object and dictionary indices below are the ones it assigns.

usage: make_compositor_seeds.py CORPUS_DIR/compositor_requests
"""
import os
import struct
import sys

# The harness's objects: 0 the display, 1 the registry, then each made.
DISPLAY, REGISTRY = 0, 1
# uda-compositor's globals in the order it creates them, with versions.
GLOBALS = {"wl_compositor": (0, 4), "xdg_wm_base": (1, 2), "wl_shm": (2, 1), "wl_output": (3, 3),
           "zwp_linux_dmabuf_v1": (4, 4), "uda_allocation_manager_v1": (5, 1)}
# Dictionary indices (make_real_buffers): the fixed entries, then pitch,
# offset, modifier high and low of each real buffer.
D_WIDTH, D_HEIGHT, D_STRIDE, D_ABGR8888 = 6, 7, 8, 12
REAL_ABGR_OPAQUE, REAL_ABGR_DMABUF = 0, 1


def real_entry(real, field):
    return 21 + 4 * real + {"pitch": 0, "offset": 1, "modifier_hi": 2, "modifier_lo": 3}[field]


SERIAL = 0x7F  # the last configure's serial


def small(value):
    assert 0 <= value < 64
    return 0x80 + value


def raw(value):
    return bytes([0xC0]) + struct.pack(">I", value)


class Script:
    def __init__(self):
        self.bytes = bytearray()
        self.objects = ["wl_display", "wl_registry"]

    def request(self, target, opcode, *args):
        self.bytes += bytes([0, target, opcode])
        for arg in args:
            self.bytes += arg if isinstance(arg, (bytes, bytearray)) else bytes([arg])

    def make(self, interface, target, opcode, *args):
        self.request(target, opcode, *args)
        self.objects.append(interface)
        return len(self.objects) - 1

    def bind(self, name):
        index, version = GLOBALS[name]
        return self.make(name, REGISTRY, 0, index, version - 1)

    def wait(self):
        self.bytes.append(7)

    def nth(self, interface, index):
        """The pick byte of an object argument: the index-th of its kind."""
        return sum(1 for o in self.objects[:index] if o == interface)


def toplevel(script):
    """A surface with the xdg_toplevel role, configured and acked."""
    compositor = script.bind("wl_compositor")
    wm_base = script.bind("xdg_wm_base")
    surface = script.make("wl_surface", compositor, 0)
    xdg_surface = script.make("xdg_surface", wm_base, 2, script.nth("wl_surface", surface))
    script.make("xdg_toplevel", xdg_surface, 1)
    script.request(surface, 6)  # commit: the compositor configures
    script.request(xdg_surface, 4, SERIAL)  # ack_configure
    return surface


def show(script, surface, buffer):
    script.request(surface, 1, 0x00, script.nth("wl_buffer", buffer), small(0), small(0))  # attach
    script.make("wl_callback", surface, 3)  # frame
    script.request(surface, 9, small(0), small(0), D_WIDTH, D_HEIGHT)  # damage_buffer
    script.request(surface, 6)  # commit: mapped
    script.wait()
    script.wait()


def shm_buffer(script, shm_format):
    """A wl_shm buffer of the output's size in a pool of its own."""
    shm = script.bind("wl_shm")
    size = 64 * 48 * 4
    pool = script.make("wl_shm_pool", shm, 0, bytes([2, size >> 8]), raw(size))
    return script.make("wl_buffer", pool, 0, small(0), D_WIDTH, D_HEIGHT, D_STRIDE, small(shm_format))


def shm_window():
    s = Script()
    surface = toplevel(s)
    show(s, surface, shm_buffer(s, 1))  # XRGB8888
    return s.bytes


def uda_window():
    s = Script()
    surface = toplevel(s)
    manager = s.bind("uda_allocation_manager_v1")
    s.make("uda_surface_sets_v1", manager, 1, s.nth("wl_surface", surface))
    s.wait()
    # The real ABGR8888 allocation's fd and metadata, as OPAQUE_FD.
    fd_kind = REAL_ABGR_OPAQUE << 4
    metadata_kind = REAL_ABGR_OPAQUE << 4
    buffer = s.make("wl_buffer", manager, 2, fd_kind, bytes([metadata_kind, 0]))
    show(s, surface, buffer)
    return s.bytes


def dmabuf_window():
    s = Script()
    surface = toplevel(s)
    dmabuf = s.bind("zwp_linux_dmabuf_v1")
    params = s.make("zwp_linux_buffer_params_v1", dmabuf, 1)
    # add: the real ABGR8888 DMA-BUF (fd kind 0x12: real 1, a real fd),
    # plane 0 at its offset and pitch, with its modifier.
    r = REAL_ABGR_DMABUF
    s.request(params, 1, 0x12, small(0), real_entry(r, "offset"), real_entry(r, "pitch"),
              real_entry(r, "modifier_hi"), real_entry(r, "modifier_lo"))
    buffer = s.make("wl_buffer", params, 3, D_WIDTH, D_HEIGHT, D_ABGR8888, small(0))  # create_immed
    show(s, surface, buffer)
    return s.bytes


def dmabuf_feedback():
    """The default feedback and a surface's (version 4), then a window."""
    s = Script()
    surface = toplevel(s)
    dmabuf = s.bind("zwp_linux_dmabuf_v1")
    s.make("zwp_linux_dmabuf_feedback_v1", dmabuf, 2)  # get_default_feedback
    s.make("zwp_linux_dmabuf_feedback_v1", dmabuf, 3, s.nth("wl_surface", surface))  # get_surface_feedback
    s.wait()
    show(s, surface, shm_buffer(s, 0))  # ARGB8888
    return s.bytes


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    for name, script in (("shm-window", shm_window()), ("uda-window", uda_window()),
                         ("dmabuf-window", dmabuf_window()), ("dmabuf-feedback", dmabuf_feedback())):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(script)


if __name__ == "__main__":
    main()
