#!/usr/bin/python3
"""The real-window journey's hands on the X server: what a window manager and a keyboard would do.

Xvfb runs no window manager, so journey.mjs asks this script (Debian's python3-xlib, run with
/usr/bin/python3) to list the top-level windows, to deliver a close request the way a window
manager does (a WM_PROTOCOLS ClientMessage carrying WM_DELETE_WINDOW: GTK turns it into the
window's delete-event, which Tauri reports as WindowEvent::CloseRequested), and to type keys into
a window (input focus, then XTEST key presses, as a real keyboard would).

  xwin.py list                 JSON: the mapped top-level windows (id, title, pid, protocols, geometry)
  xwin.py close WINDOW_ID [N]  sends WM_DELETE_WINDOW to the window (N times in one go: a double click
                               on the close button, both requests queued before the app handles one)
  xwin.py keys WINDOW_ID KEY…  focuses the window, then presses and releases each key (X keysym names)
"""
import json
import sys

from Xlib import X, XK, display, protocol
from Xlib.ext import xtest


def text_property(d, w, name, kind):
    prop = w.get_full_property(d.intern_atom(name), d.intern_atom(kind) if kind else X.AnyPropertyType)
    if prop is None:
        return None
    value = prop.value
    return value.decode('utf-8', 'replace') if isinstance(value, bytes) else str(value)


def windows(d):
    out = []
    for w in d.screen().root.query_tree().children:
        try:
            if w.get_attributes().map_state != X.IsViewable:
                continue
            title = text_property(d, w, '_NET_WM_NAME', 'UTF8_STRING') or text_property(d, w, 'WM_NAME', None)
            pid = w.get_full_property(d.intern_atom('_NET_WM_PID'), X.AnyPropertyType)
            protocols = w.get_full_property(d.intern_atom('WM_PROTOCOLS'), X.AnyPropertyType)
            geometry = w.get_geometry()
        except Exception:  # the window went away while we looked at it
            continue
        out.append({
            'id': w.id,
            'title': title,
            'pid': int(pid.value[0]) if pid else None,
            'protocols': [d.get_atom_name(a) for a in protocols.value] if protocols else [],
            'x': geometry.x, 'y': geometry.y, 'width': geometry.width, 'height': geometry.height,
        })
    return out


def close(d, wid, times=1):
    w = d.create_resource_object('window', wid)
    event = protocol.event.ClientMessage(
        window=w,
        client_type=d.intern_atom('WM_PROTOCOLS'),
        data=(32, [d.intern_atom('WM_DELETE_WINDOW'), X.CurrentTime, 0, 0, 0]),
    )
    # ICCCM 4.2.8: sent to the client's window with an empty event mask, as a window manager does.
    for _ in range(times):
        w.send_event(event, event_mask=X.NoEventMask)
    d.sync()


def keys(d, wid, names):
    w = d.create_resource_object('window', wid)
    w.set_input_focus(X.RevertToParent, X.CurrentTime)
    d.sync()
    for name in names:
        code = d.keysym_to_keycode(XK.string_to_keysym(name))
        if not code:
            raise SystemExit(f'no keycode for {name!r}')
        xtest.fake_input(d, X.KeyPress, code)
        xtest.fake_input(d, X.KeyRelease, code)
        d.sync()


def main(argv):
    d = display.Display()
    if argv[:1] == ['list']:
        print(json.dumps(windows(d), ensure_ascii=False))
    elif argv[:1] == ['close'] and len(argv) in (2, 3):
        close(d, int(argv[1], 0), int(argv[2]) if len(argv) == 3 else 1)
    elif argv[:1] == ['keys'] and len(argv) >= 3:
        keys(d, int(argv[1], 0), argv[2:])
    else:
        raise SystemExit(__doc__)
    d.close()


if __name__ == '__main__':
    main(sys.argv[1:])
