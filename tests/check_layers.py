#!/usr/bin/env python3
"""The layering of docs/layers.md, checked on the sources: every #include "X"
names a header of its own layer or of a layer its row in meson.build's table
declares (the edges are the true ones: a layer uses directly only the layers
it lists, and lists only layers it uses), by its bare name (a path like
"../x.h" or "dir/x.h" would go around the include directories that meson.build
gives each layer's library). Given the build directory, the same for the
libraries' symbols (nm): no layer calls a function or names a variable of a
layer it does not declare (an extern declared in place needs no header), and
inside a library no file circle: the files' calls of each other's functions
run one way (a circle is named with its files).
Exit 1 naming each include, symbol, unused edge or circle."""
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


def direct(layer):
    """what layer may use: its declared edges (main: everything below it)"""
    return below(layer) if layer == 'main' else set(LAYERS[layer][1])


def main():
    headers = {}  # bare name -> layers holding it
    for layer, (d, _) in LAYERS.items():
        for f in os.listdir(os.path.join(ROOT, d)):
            if f.endswith(('.h', '.def')):
                headers.setdefault(f, []).append(layer)
    bad = []
    used = {layer: set() for layer in LAYERS}  # the layers each one uses
    for layer, (d, _) in LAYERS.items():
        allowed = direct(layer) | {layer}
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
                                   f'not an edge of {layer}')
                    else:
                        used[layer] |= set(where) & allowed
    if BUILD:
        bad += symbols_up(used)
        bad += circles()
        for layer in LAYERS:
            if layer == 'main':
                continue
            for b in sorted(set(LAYERS[layer][1]) - used[layer]):
                bad.append(f'{layer} declares {b} but uses none of it (meson.build\'s table)')
    for b in bad:
        print(b)
    if bad:
        print('layers: an include or a symbol beyond the declared edges, an edge not used, '
              'or a file circle (docs/layers.md)')
    return 1 if bad else 0


def nm(layer, *flags):
    lib = os.path.join(BUILD, f'libbc_{layer}.a')
    out = subprocess.run(['nm', '-g', *flags, lib], capture_output=True, text=True,
                         check=True).stdout
    return [line.split() for line in out.splitlines() if line and not line.endswith(':')]


def symbols_up(used):
    layers = [layer for layer in LAYERS if layer != 'main']
    defined = {}  # symbol -> the layer defining it
    for layer in layers:
        for row in nm(layer, '--defined-only'):
            defined.setdefault(row[-1], layer)
    bad = []
    for layer in layers:
        allowed = direct(layer) | {layer}
        for sym in sorted({row[-1] for row in nm(layer, '--undefined-only')}):
            d = defined.get(sym, layer)
            if d not in allowed:
                bad.append(f'libbc_{layer}.a uses {sym} of {d}: not an edge of {layer}')
            elif d != layer:
                used[layer].add(d)
    return bad


def circles():
    """file circles inside each library: a file calls a function of another
    that (through others) calls back into it (Tarjan's strongly connected
    components over the objects' defined and undefined symbols)"""
    bad = []
    for layer in LAYERS:
        if layer == 'main':
            continue
        out = subprocess.run(['nm', '-A', os.path.join(BUILD, f'libbc_{layer}.a')],
                             capture_output=True, text=True, check=True).stdout
        defs, uses = {}, {}
        for line in out.splitlines():
            m = re.match(r'[^:]+:([^:]+):\s*\w*\s+(\w)\s+(\S+)$', line)
            if not m:
                continue
            obj, kind, sym = m.groups()
            if kind == 'U':
                uses.setdefault(obj, set()).add(sym)
            elif kind.isupper():
                defs[sym] = obj
        graph = {o: {defs[s] for s in us if s in defs and defs[s] != o} for o, us in uses.items()}
        index, low, stack, on, count = {}, {}, [], set(), [0]

        def visit(v):
            index[v] = low[v] = count[0]
            count[0] += 1
            stack.append(v)
            on.add(v)
            for w in sorted(graph.get(v, ())):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    names = sorted(c.split('_')[-1].removesuffix('.o') for c in comp)
                    bad.append(f'libbc_{layer}.a: a file circle: {", ".join(names)}')

        sys.setrecursionlimit(10000)
        for v in sorted(graph):
            if v not in index:
                visit(v)
    return bad


if __name__ == '__main__':
    sys.exit(main())
