#!/usr/bin/env python3
"""The layering of docs/layers.md, checked on the sources: every #include "X"
names a header of its own layer or of a layer below it, by its bare name (a
path like "../x.h" or "dir/x.h" would go around the include directories that
meson.build gives each layer's library). The layers and what stands below each
are read from meson.build's table. Given the build directory, the same for the
libraries' symbols (nm): no layer calls a function or names a variable that
only a layer above it defines (an extern declared in place needs no header).
Exit 1 naming each include or symbol that goes up, sideways or around."""
import os
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
BUILD = sys.argv[2] if len(sys.argv) > 2 else None  # with it: the libraries' symbols too



def read_layers():
    """meson.build's table of layers: name -> (directory, the layers right below)."""
    with open(os.path.join(ROOT, 'meson.build'), encoding='utf-8') as f:
        text = f.read()
    table = text[text.index('\nlayers = ['):text.index('\n]\n', text.index('\nlayers = ['))]
    layers = {name: (d, re.findall(r"'(\w+)'", below)) for name, d, below in
              re.findall(r"\[\s*'(\w+)',\s*'([^']+)',\s*(?:\[[^\]]*\]|\w+),\s*\[([^\]]*)\]", table)}
    # src/main.c stands on all of them
    layers['main'] = ('src', list(layers))
    return layers


LAYERS = read_layers()


def below(layer, seen=None):
    seen = set() if seen is None else seen
    for b in LAYERS[layer][1]:
        if b not in seen:
            seen.add(b)
            below(b, seen)
    return seen


def main():
    headers = {}  # bare name -> layers holding it
    for layer, (d, _) in LAYERS.items():
        for f in os.listdir(os.path.join(ROOT, d)):
            if f.endswith(('.h', '.def')):
                headers.setdefault(f, []).append(layer)
    bad = []
    for layer, (d, _) in LAYERS.items():
        allowed = below(layer) | {layer}
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if not f.endswith(('.c', '.h', '.def')):
                continue
            path = os.path.join(d, f)
            with open(os.path.join(ROOT, path), encoding='utf-8') as src:
                for n, line in enumerate(src, 1):
                    m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                    if not m:
                        continue
                    name = m.group(1)
                    where = headers.get(name, [])
                    if '/' in name:
                        bad.append(f'{path}:{n}: "{name}": a path, not a bare name')
                    elif layer in where:
                        continue  # its own layer's (the includer's directory comes first)
                    elif not where:
                        bad.append(f'{path}:{n}: "{name}": in no layer')
                    elif not set(where) & allowed:
                        bad.append(f'{path}:{n}: "{name}" is {"/".join(where)}\'s: '
                                   f'not below {layer}')
    if BUILD:
        bad += symbols_up()
    for b in bad:
        print(b)
    if bad:
        print('layers: an include or a symbol goes up (docs/layers.md)')
    return 1 if bad else 0


def nm(layer, *flags):
    lib = os.path.join(BUILD, f'libbc_{layer}.a')
    out = subprocess.run(['nm', '-g', *flags, lib], capture_output=True, text=True,
                         check=True).stdout
    return [line.split() for line in out.splitlines() if line and not line.endswith(':')]


def symbols_up():
    layers = [layer for layer in LAYERS if layer != 'main']
    defined = {}  # symbol -> the layer defining it
    for layer in layers:
        for row in nm(layer, '--defined-only'):
            defined.setdefault(row[-1], layer)
    bad = []
    for layer in layers:
        allowed = below(layer) | {layer}
        for sym in sorted({row[-1] for row in nm(layer, '--undefined-only')}):
            if defined.get(sym, layer) not in allowed:
                bad.append(f'libbc_{layer}.a uses {sym} of {defined[sym]}: not below {layer}')
    return bad


if __name__ == '__main__':
    sys.exit(main())
