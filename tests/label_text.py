"""A label that is a term as the columns show it (src/render/label.c's
render_label_short, written again here as the tests' oracle): atoms,
numbers and the text of binaries, strings and quoted atoms joined by
spaces, less the tags of the records inside it; only a tuple with a binary
in it."""
import re

TOKEN = re.compile(r'"(?:\\.|[^"\\])*"?|\'(?:\\.|[^\'\\])*\'?|<<.*?>>|<<.*$|[^,{}\[\] ]+')

def short(label):
    if not label or not label.startswith("{") or '<<"' not in label:
        return label
    out, tag, i = [], False, 1
    while i < len(label):
        c = label[i]
        if c in ",}] [":
            i += 1
            continue
        if c == "{":
            tag, i = True, i + 1
            continue
        m = TOKEN.match(label, i)
        if c == "<" and not label.startswith("<<", i) or c == "#":
            # <...>, #Ref<...>: to the bracket that closes it
            depth, j = 0, i
            while j < len(label):
                if label[j] == "<": depth += 1
                elif label[j] == ">" and depth: depth -= 1
                elif not depth and label[j] in ",{}[]": break
                j += 1
            tok = label[i:j]
        else:
            tok = m.group(0) if m else label[i]
        j = i + max(len(tok), 1)
        atom = tok[:1] not in ('"', "'", "<", "#", "-") and not tok[:1].isdigit()
        text = tok
        if tok.startswith('<<"') and len(tok) >= 5 and tok[-3] == '"':
            text = tok[3:-3]
        elif tok[:1] in ('"', "'"):
            text = tok[1:-1] if len(tok) > 1 and tok[-1] == tok[0] else tok[1:]
        if not (tag and atom) and text:
            out.append(re.sub(r"\\(.)", r"\1", text))
        tag, i = False, j
    return " ".join(out) if out else label
