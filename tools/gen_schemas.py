#!/usr/bin/env python3
"""Rewrites the inplace, out and schema columns of ir/ops.def from
PyTorch, keeping everything else of the file as it is.  Needs a Python
with torch; run from the repository root:
    python3 tools/gen_schemas.py
- schema (rows with a lowering rule only, the ops the lowering checks):
  the parameters, space-separated; a name ending in '=' has a default
  and '*' starts the keyword-only ones;
- inplace: NAME_.OVERLOAD when torch has it with the same parameters;
- out: the overload of NAME with the same parameters plus out= ones.
A row torch does not know keeps NULL there (a warning says which)."""
import re
import sys

import torch

PATH = "ir/ops.def"
ROW = re.compile(r"^OP\((.*?)\)$", re.M | re.S)
COLS = 9  # overload family rule decompose shape fold inplace out schema


def split_args(text):
    """The columns of one row; adjacent string literals joined."""
    cols, cur, s = [], [], None
    for tok in re.findall(r'"[^"]*"|[^\s,"]+|,', text):
        if tok == ",":
            cols.append(s if s is not None else " ".join(cur))
            cur, s = [], None
        elif tok.startswith('"'):
            s = (s or "") + tok[1:-1]
        else:
            cur.append(tok)
    cols.append(s if s is not None else " ".join(cur))
    return cols


def quote(v):
    return "NULL" if v is None else '"%s"' % v


def chunks(s, width):
    """String literal pieces of s, each at most width wide."""
    out, cur = [], ""
    for w in s.split(" "):
        piece = (cur + " " + w) if cur else w
        if cur and len(piece) + 3 > width:
            out.append('"%s "' % cur)
            cur = w
        else:
            cur = piece
    out.append('"%s"' % cur)
    return out


def fmt(cols):
    """The row packed into lines of at most 80 columns (tab: 8)."""
    pieces = [("", "OP(" + quote(cols[0]))]
    pieces += [(", ", c) for c in cols[1:6]]
    pieces += [(", ", quote(c)) for c in cols[6:8]]
    if cols[8] is None:
        pieces.append((", ", "NULL"))
    else:
        lit = chunks(cols[8], 70)
        pieces += [(", ", lit[0])] + [(" ", c) for c in lit[1:]]
    pieces[-1] = (pieces[-1][0], pieces[-1][1] + ")")
    lines, cur = [], pieces[0][1]
    for sep, t in pieces[1:]:
        if len(cur.expandtabs(8)) + len(sep) + len(t) <= 80:
            cur += sep + t
        else:
            lines.append(cur + sep.rstrip())
            cur = "\t" + t
    return "\n".join(lines + [cur])


def params(schema):
    parts, kwonly = [], False
    for a in schema.arguments:
        if a.kwarg_only and not kwonly:
            parts.append("*")
            kwonly = True
        parts.append(a.name + ("=" if a.has_default_value() else ""))
    return " ".join(parts)


def sig(schema):
    return [(a.name, str(a.type)) for a in schema.arguments if not a.is_out]


def packet(name):
    return getattr(torch.ops.aten, name, None)


def refresh(cols):
    op = cols[0]
    if not op.startswith("aten::"):
        return cols
    name, overload = op[len("aten::"):].rsplit(".", 1)
    try:
        schema = getattr(packet(name), overload)._schema
    except (AttributeError, RuntimeError, TypeError):
        print(f"gen_schemas: torch has no {op}", file=sys.stderr)
        return cols[:6] + [None, None, None]
    inplace = out = None
    ip = packet(name + "_")
    if ip is not None and overload in ip.overloads() and \
            sig(getattr(ip, overload)._schema) == sig(schema):
        inplace = f"aten::{name}_.{overload}"
    for o in packet(name).overloads():
        s = getattr(packet(name), o)._schema
        if any(a.is_out for a in s.arguments) and sig(s) == sig(schema):
            out = f"aten::{name}.{o}"
            break
    lowered = cols[1] != "none"
    return cols[:6] + [inplace, out, params(schema) if lowered else None]


def main():
    text = open(PATH).read()

    def row(m):
        cols = [None if c == "NULL" else c for c in split_args(m.group(1))]
        if len(cols) != COLS:
            sys.exit(f"gen_schemas: {PATH}: row with {len(cols)} columns: "
                     f"{m.group(0)[:60]}")
        return fmt(refresh(cols))

    text = ROW.sub(row, text)
    text = re.sub(r"(as torch )[0-9.]+( declares)",
                  r"\g<1>" + torch.__version__.split("+")[0] + r"\2", text)
    open(PATH, "w").write(text)


if __name__ == "__main__":
    main()
