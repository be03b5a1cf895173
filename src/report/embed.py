#!/usr/bin/env python3
"""embed.py PAGE.js PAGE.css OUT.c: the report page's script and style as C
strings, and the Content-Security-Policy that allows exactly these two inline
blocks (by their SHA-256) and nothing else: no request of any kind, no other
script, no style attribute from markup."""
import base64, hashlib, sys

js, css, out = sys.argv[1:4]

def text(path):
    with open(path, encoding='utf-8') as f:
        s = f.read()
    if '</script' in s.lower() or '</style' in s.lower():
        sys.exit(f"{path}: holds a closing tag of its element")
    return s

def sha(s):
    return base64.b64encode(hashlib.sha256(s.encode('utf-8')).digest()).decode()

def literal(name, s):
    lines = [f"const char {name}[] ="]
    b = s.encode('utf-8')
    for i in range(0, len(b), 96):
        chunk = ''.join(c if 32 <= ord(c) < 127 and c not in '"\\?' else f'\\{ord(c):03o}'
                        for c in b[i:i + 96].decode('latin-1'))
        lines.append(f'\t"{chunk}"')
    return '\n'.join(lines) + ';\n'

j, c = text(js), text(css)
csp = (f"default-src 'none'; script-src 'sha256-{sha(j)}'; style-src 'sha256-{sha(c)}'; "
       "img-src data:; base-uri 'none'; form-action 'none'")
with open(out, 'w', encoding='utf-8') as f:
    f.write('/* made by src/report/embed.py from page.js and page.css: do not edit */\n')
    f.write(literal('report_js', j))
    f.write(literal('report_css', c))
    f.write(literal('report_csp', csp))
