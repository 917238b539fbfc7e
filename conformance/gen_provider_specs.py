"""Writes `conformance/providers/*.schema.json` and `conformance/providers/SOURCES.md`: the JSON
Schemas of the request bodies Prompt Inspector builds, extracted from each provider's own
published specification (tests/it/provider_specs.rs validates every golden request body against
them).

Sources (read from local git mirrors, never from the network):

* OpenAI's OpenAPI document (github openai/openai-openapi, `openapi.json`): the request body
  schemas of `POST /chat/completions` (also the schema of the OpenAI-compatible adapters: SGLang,
  DeepSeek, Tencent Cloud DeepSeek), `POST /responses` and `POST /completions`.
* Anthropic's Python SDK (github anthropics/anthropic-sdk-python,
  `src/anthropic/types/message_create_params.py` and the `*_param.py` TypedDicts it references),
  converted to JSON Schema.
* Gemini's protos (github googleapis/googleapis, `google/ai/generativelanguage/v1beta/*.proto`):
  `GenerateContentRequest` as its REST body, converted with the proto3 JSON mapping.
* Ollama's OpenAPI document (github ollama/ollama, `docs/openapi.yaml`): `POST /api/chat`.

Only the schemas reachable from each request type are kept ($ref followed transitively), with the
annotations (descriptions, examples, defaults, formats, vendor `x-` keys) dropped, so the files
hold only validation keywords. A keyword this script does not know stops it: teach it (and the
validator in tests/it/provider_specs.rs) rather than let a constraint be lost.

Usage (Python 3.9+, standard library only):

    python3 conformance/gen_provider_specs.py [--mirrors DIR] [--read-date YYYY-MM-DD]

DIR holds one bare git mirror per repository as `<owner>+<name>/repo` (default `/work/.mirror`,
where the `fetch` tool puts them); each is read at its HEAD. The read date (default: today) and
each mirror's commit are recorded in the files and in SOURCES.md. Rerun after fetching newer
mirrors and review the diff.
"""

import argparse
import ast
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "conformance" / "providers"

# JSON Schema keywords kept (values are schemas, lists of schemas or plain values): exactly those
# the validator of tests/it/json_schema.rs implements, so a new one stops this script here.
KEEP = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "anyOf",
    "oneOf", "allOf", "$ref", "minimum", "maximum", "minItems", "maxItems", "minLength",
    "maxLength", "maxProperties", "pattern", "propertyNames",
}
# Annotations: no effect on which bodies are valid, dropped. (`discriminator` only tells a
# client which `oneOf` branch to try; `format` is an annotation in JSON Schema 2020-12.)
DROP = {
    "description", "title", "example", "examples", "default", "deprecated", "format",
    "discriminator", "readOnly", "writeOnly", "externalDocs", "$recursiveAnchor",
    "contentEncoding", "contentMediaType",
}
SCHEMA_LISTS = {"anyOf", "oneOf", "allOf"}
SCHEMA_VALUES = {"items", "propertyNames", "additionalProperties"}


def fail(message):
    sys.exit(f"gen_provider_specs: {message}")


class Mirror:
    """A bare git mirror read at its HEAD."""

    def __init__(self, root, repo):
        self.repo = repo
        self.dir = Path(root) / repo.replace("/", "+") / "repo"
        if not self.dir.is_dir():
            fail(f"no mirror of {repo} at {self.dir} (fetch github:{repo} first)")
        self.commit = self.git("rev-parse", "HEAD").strip()
        self.date = self.git("log", "-1", "--format=%cs", "HEAD").strip()

    def git(self, *args):
        done = subprocess.run(
            ["git", "-C", str(self.dir), *args], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            fail(f"git {' '.join(args)} in {self.dir}: {done.stderr.strip()}")
        return done.stdout

    def read(self, path):
        return self.git("show", f"{self.commit}:{path}")

    def url(self, path):
        return f"https://github.com/{self.repo}/blob/{self.commit}/{path}"


# ---------------------------------------------------------------------------------------------
# OpenAPI documents (OpenAI, Ollama)


def clean(node, where, ref_prefix, recursive_self=None):
    """An OpenAPI schema as plain JSON Schema: annotations dropped, `nullable: true` (OpenAPI 3.0)
    turned into a `null` alternative, `$recursiveRef: "#"` (only used for self-recursion here)
    into a `$ref` to the schema itself, refs pointed at `#/$defs/`."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, dict):
        fail(f"{where}: a schema must be an object, not {node!r}")
    if node.get("$recursiveAnchor"):
        recursive_self = where.split("/")[0]
    out = {}
    nullable = False
    for key, value in node.items():
        if key in DROP or key.startswith("x-"):
            continue
        if key == "nullable":
            nullable = value is True
        elif key == "$ref":
            if not value.startswith(ref_prefix):
                fail(f"{where}: $ref {value!r} is outside {ref_prefix}")
            out["$ref"] = "#/$defs/" + value[len(ref_prefix):]
        elif key == "$recursiveRef":
            if value != "#" or recursive_self is None:
                fail(f"{where}: $recursiveRef {value!r} without a $recursiveAnchor")
            out["$ref"] = "#/$defs/" + recursive_self
        elif key == "properties":
            out[key] = {
                name: clean(sub, f"{where}/{name}", ref_prefix, recursive_self)
                for name, sub in value.items()
            }
        elif key in SCHEMA_LISTS:
            # OpenAPI documents write unions as `oneOf` whose branches overlap (OpenAI's
            # EasyInputMessage and InputMessage both take `{role: user, content: [...]}`); the
            # servers take a body that fits any branch, so the union is `anyOf`.
            if key == "oneOf" and "anyOf" in node:
                fail(f"{where}: both oneOf and anyOf (teach the script to combine them)")
            out["anyOf" if key == "oneOf" else key] = [
                clean(sub, f"{where}/{key}[{i}]", ref_prefix, recursive_self)
                for i, sub in enumerate(value)
            ]
        elif key in SCHEMA_VALUES:
            out[key] = clean(value, f"{where}/{key}", ref_prefix, recursive_self)
        elif key in KEEP:
            out[key] = value
        else:
            fail(f"{where}: unknown keyword {key!r} (teach the script what it means)")
    if nullable:
        out = with_null(out)
    return out


def with_null(schema):
    """`schema` or null."""
    t = schema.get("type")
    if isinstance(t, str) and set(schema) <= {"type", "enum", "minimum", "maximum", "minLength",
                                               "maxLength", "pattern", "items", "minItems",
                                               "maxItems", "properties", "required",
                                               "additionalProperties"}:
        schema = dict(schema, type=[t, "null"])
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def refs_of(node, acc):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                acc.append(value.rsplit("/", 1)[1])
            else:
                refs_of(value, acc)
    elif isinstance(node, list):
        for value in node:
            refs_of(value, acc)
    return acc


def closure(defs, roots):
    """The definitions reachable from `roots`, in the order of `defs`."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in defs:
            fail(f"unresolved reference to {name!r}")
        seen.add(name)
        todo.extend(refs_of(defs[name], []))
    return {name: defs[name] for name in defs if name in seen}


def request_schema_name(doc, path, where):
    """The component a path's POST body is, from the document's `paths`."""
    try:
        ref = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    except KeyError:
        fail(f"{where}: no JSON request body for POST {path}")
    if set(ref) != {"$ref"}:
        fail(f"{where}: POST {path}'s body is not a $ref: {ref!r}")
    return ref["$ref"].rsplit("/", 1)[1]


def from_openapi(doc, path, where):
    root = request_schema_name(doc, path, where)
    prefix = "#/components/schemas/"
    raw = doc["components"]["schemas"]
    defs = {name: clean(raw[name], name, prefix) for name in closure(raw, [root])}
    return root, defs


# A YAML reader for the block-style subset OpenAPI documents are written in (mappings, sequences,
# plain and quoted scalars, flow sequences and mappings, literal and folded block scalars). The
# standard library has none; anything outside the subset (anchors, tags, multi-line plain
# scalars, documents) stops the script rather than being misread.


class Yaml:
    def __init__(self, text, where):
        self.where = where
        self.lines = []
        for number, raw in enumerate(text.split("\n"), 1):
            if "\t" in raw[: len(raw) - len(raw.lstrip())]:
                self.error(number, "tab indentation")
            self.lines.append((number, raw))
        self.i = 0

    def error(self, number, message):
        fail(f"{self.where}:{number}: {message}")

    def skip_blank(self):
        while self.i < len(self.lines):
            text = strip_comment(self.lines[self.i][1])
            if text.strip():
                return
            self.i += 1

    def peek(self):
        self.skip_blank()
        if self.i >= len(self.lines):
            return None
        number, raw = self.lines[self.i]
        text = strip_comment(raw).rstrip()
        return number, len(text) - len(text.lstrip(" ")), text.strip()

    def document(self):
        value = self.node(0)
        if self.peek() is not None:
            number = self.peek()[0]
            self.error(number, "unexpected content after the document")
        return value

    def node(self, indent):
        head = self.peek()
        if head is None or head[1] < indent:
            return None
        _, at, text = head
        if text.startswith("- ") or text == "-":
            return self.sequence(at)
        return self.mapping(at)

    def sequence(self, indent):
        out = []
        while True:
            head = self.peek()
            if head is None or head[1] != indent or not (head[2] == "-" or head[2].startswith("- ")):
                return out
            number, _, text = head
            rest = text[1:].lstrip(" ")
            if not rest:
                self.i += 1
                out.append(self.node(indent + 1))
                continue
            inner = indent + (len(text) - len(rest))
            if key_value(rest) is not None:
                # `- key: value` opens a mapping at the column of `key`.
                self.lines[self.i] = (number, " " * inner + rest)
                out.append(self.mapping(inner))
            else:
                self.i += 1
                out.append(self.scalar_or_block(rest, number, indent))

    def mapping(self, indent):
        out = {}
        while True:
            head = self.peek()
            if head is None or head[1] != indent:
                return out
            number, _, text = head
            kv = key_value(text)
            if kv is None:
                self.error(number, f"expected `key: value`, got {text!r}")
            key, rest = kv
            if key in out:
                self.error(number, f"duplicate key {key!r}")
            self.i += 1
            if rest:
                out[key] = self.scalar_or_block(rest, number, indent)
            else:
                nxt = self.peek()
                if nxt is not None and (nxt[1] > indent or (nxt[1] == indent and nxt[2].startswith("- "))):
                    out[key] = self.node(nxt[1])
                else:
                    out[key] = None

    def scalar_or_block(self, text, number, indent):
        if re.fullmatch(r"[|>][-+]?", text):
            return self.block_scalar(text, indent)
        if text[0] in "[{":
            # A flow collection may go on over the next lines: read up to its closing bracket.
            while depth(text) > 0 and self.i < len(self.lines):
                text += " " + strip_comment(self.lines[self.i][1]).strip()
                self.i += 1
        value, end = flow(text, 0, number, self)
        if text[end:].strip():
            self.error(number, f"unexpected {text[end:]!r}")
        nxt = self.peek()
        if nxt is not None and nxt[1] > indent and not isinstance(value, (list, dict)):
            self.error(nxt[0], "multi-line plain scalars are not read; quote the value")
        return value

    def block_scalar(self, style, indent):
        lines = []
        while self.i < len(self.lines):
            number, raw = self.lines[self.i]
            if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= indent:
                break
            lines.append(raw)
            self.i += 1
        while lines and not lines[-1].strip():
            lines.pop()
        body = [line for line in lines if line.strip()]
        cut = min((len(line) - len(line.lstrip(" ")) for line in body), default=0)
        lines = [line[cut:] for line in lines]
        text = "\n".join(lines) if style[0] == "|" else " ".join(lines)
        return text if style.endswith("-") else text + "\n"


def depth(text):
    """How many flow brackets of `text` are still open (quotes skipped)."""
    level, quote = 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            level += 1
        elif ch in "]}":
            level -= 1
    return level


def strip_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'" and (i == 0 or line[i - 1] in " [{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i]
    return line


def key_value(text):
    """`key: rest` (rest may be empty), or None."""
    if text[0] in "\"'":
        end = text.find(text[0], 1)
        key, after = text[1:end], text[end + 1:]
    else:
        match = re.match(r"([^:{}\[\],#]+?):(\s|$)", text)
        if not match:
            return None
        key, after = match.group(1), text[len(match.group(1)):]
    if not after.startswith(":"):
        return None
    return key, after[1:].strip()


def flow(text, i, number, yaml, in_flow=False):
    """A value at `text[i:]`: (value, end). Inside a flow collection a plain scalar ends at `,`,
    `]` or `}`; outside it runs to the end of the line."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return None, i
    ch = text[i]
    if ch in "&*!%@`":
        yaml.error(number, "anchors, aliases, tags and reserved indicators are not read")
    if ch == '"':
        end = i + 1
        while end < len(text) and text[end] != '"':
            end += 2 if text[end] == "\\" else 1
        if end >= len(text):
            yaml.error(number, "unterminated double-quoted scalar")
        return json.loads(text[i:end + 1]), end + 1
    if ch == "'":
        end = i + 1
        while True:
            end = text.find("'", end)
            if end < 0:
                yaml.error(number, "unterminated single-quoted scalar")
            if text[end + 1:end + 2] == "'":
                end += 2
                continue
            return text[i + 1:end].replace("''", "'"), end + 1
    if ch in "[{":
        close = "]" if ch == "[" else "}"
        out = [] if ch == "[" else {}
        i += 1
        while True:
            while i < len(text) and text[i] == " ":
                i += 1
            if i >= len(text):
                yaml.error(number, "flow collections must end on their line")
            if text[i] == close:
                return out, i + 1
            if ch == "[":
                value, i = flow(text, i, number, yaml, True)
                out.append(value)
            else:
                key, i = flow(text, i, number, yaml, True)
                if i >= len(text) or text[i] != ":":
                    yaml.error(number, "expected ':' in a flow mapping")
                value, i = flow(text, i + 1, number, yaml, True)
                out[key] = value
            while i < len(text) and text[i] == " ":
                i += 1
            if i < len(text) and text[i] == ",":
                i += 1
    end = i
    if in_flow:
        while end < len(text) and text[end] not in ",]}:":
            end += 1
    else:
        end = len(text)
    return plain(text[i:end].strip()), end


def plain(token):
    if token in ("null", "~", ""):
        return None
    if token in ("true", "false"):
        return token == "true"
    if re.fullmatch(r"-?(0|[1-9][0-9]*)", token):
        return int(token)
    if re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?", token):
        return float(token)
    return token


def read_yaml(text, where):
    return Yaml(text, where).document()


# ---------------------------------------------------------------------------------------------
# Anthropic's SDK TypedDicts


class TypedDicts:
    """Converts the SDK's request TypedDicts to JSON Schema.

    * A TypedDict is an object with exactly its keys (`additionalProperties: false`: the API
      refuses unknown fields), unless the SDK marks it `set_pydantic_config(..., {"extra":
      "allow"})`. Keys are required when `Required[...]`, or when the class is `total=True` and
      not `NotRequired[...]`; inherited keys come first.
    * `Optional[T]` is T or null; `Union` is `anyOf`; `Literal` is `enum`; `Iterable`, `List`,
      `Sequence` and `SequenceNotStr` are arrays; `Dict[str, T]` is an object of T; `object` is any.
    * `Annotated[T, PropertyInfo(alias=...)]` renames the key on the wire; `Base64FileInput` is a
      file the SDK base64-encodes into the string beside it, so it adds nothing on the wire.
    * Pydantic models in a union (the SDK's response blocks, which it accepts back as input) are
      left out: the `*Param` TypedDicts are the request's own shapes.
    """

    PACKAGE = "src/anthropic/types"
    ARRAYS = {"Iterable", "List", "Sequence", "SequenceNotStr"}
    SCALARS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
    WIRELESS = {"Base64FileInput"}  # SDK-side inputs that add no wire type

    def __init__(self, mirror):
        self.mirror = mirror
        self.modules = {}
        self.defs = {}  # (module, class) -> schema
        self.order = []

    def module(self, name):
        if name not in self.modules:
            path = f"{self.PACKAGE}/{name.replace('.', '/')}.py"
            tree = ast.parse(self.mirror.read(path), path)
            mod = {"path": path, "imports": {}, "classes": {}, "aliases": {}, "open": set()}
            for stmt in tree.body:
                self.statement(name, mod, stmt)
            self.modules[name] = mod
        return self.modules[name]

    def statement(self, name, mod, stmt):
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                mod["imports"][alias.asname or alias.name] = (stmt.level, stmt.module, alias.name)
        elif isinstance(stmt, ast.ClassDef):
            mod["classes"][stmt.name] = stmt
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.value is not None:
                mod["aliases"][stmt.target.id] = stmt.value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and target.id != "__all__":
                mod["aliases"][target.id] = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            if getattr(call.func, "id", None) == "set_pydantic_config":
                config = ast.literal_eval(call.args[1])
                if config.get("extra") == "allow":
                    mod["open"].add(call.args[0].id)

    def resolve(self, modname, ident):
        """(kind, module, name) of an identifier used in `modname`."""
        mod = self.module(modname)
        if ident in mod["classes"]:
            return "class", modname, ident
        if ident in mod["aliases"]:
            return "alias", modname, ident
        if ident in mod["imports"]:
            level, source, original = mod["imports"][ident]
            if level == 0:
                return "typing", source, original
            parts = modname.split(".")[:-1] if "." in modname else []
            up = level - 1
            if up > len(parts):
                return "sdk", source, original  # anthropic._types, ._utils, ._models
            base = parts[: len(parts) - up] if up else parts
            target = ".".join([*base, source]) if source else ".".join(base)
            return self.resolve(target, original)
        if ident in ("str", "int", "float", "bool", "object", "None"):
            return "builtin", None, ident
        fail(f"{mod['path']}: cannot resolve {ident!r}")

    def is_typeddict(self, modname, cls):
        for base in cls.bases:
            if isinstance(base, ast.Name):
                kind, mod, name = self.resolve(modname, base.id)
                if kind == "typing" and name == "TypedDict":
                    return True
                if kind == "class" and self.is_typeddict(mod, self.module(mod)["classes"][name]):
                    return True
        return False

    def def_name(self, modname, name):
        return f"{modname}.{name}"

    def convert(self, modname, node):
        """A schema, or None for a type that adds nothing on the wire."""
        if isinstance(node, ast.Constant):
            if node.value is None:
                return {"type": "null"}
            if isinstance(node.value, str):
                return self.convert(modname, ast.parse(node.value, mode="eval").body)
            fail(f"{modname}: constant {node.value!r} as a type")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return union([self.convert(modname, node.left), self.convert(modname, node.right)])
        if isinstance(node, ast.Name):
            return self.named(modname, node.id)
        if isinstance(node, ast.Subscript):
            head = self.head(modname, node.value)
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in ("Required", "NotRequired"):
                return self.convert(modname, args[0])
            if head == "Optional":
                return union([self.convert(modname, args[0]), {"type": "null"}])
            if head == "Union":
                return union([self.convert(modname, a) for a in args])
            if head == "Literal":
                return {"enum": [ast.literal_eval(a) for a in args]}
            if head in self.ARRAYS:
                return {"type": "array", "items": self.convert(modname, args[0])}
            if head in ("Dict", "Mapping"):
                value = self.convert(modname, args[1])
                return {"type": "object"} if value == {} else {"type": "object", "additionalProperties": value}
            if head == "Annotated":
                return self.convert(modname, args[0])
            fail(f"{modname}: unknown generic {head!r}")
        fail(f"{modname}: unknown type expression {ast.dump(node)}")

    def head(self, modname, node):
        if isinstance(node, ast.Name):
            kind, _, name = self.resolve(modname, node.id)
            if kind in ("typing", "sdk"):
                return name
        fail(f"{modname}: unknown generic {ast.dump(node)}")

    def named(self, modname, ident):
        kind, mod, name = self.resolve(modname, ident)
        if kind == "builtin":
            if name == "object":
                return {}
            if name == "None":
                return {"type": "null"}
            return {"type": self.SCALARS[name]}
        if kind == "sdk" and name in self.WIRELESS:
            return None
        if kind == "alias":
            return self.convert(mod, self.module(mod)["aliases"][name])
        if kind == "class":
            cls = self.module(mod)["classes"][name]
            if not self.is_typeddict(mod, cls):
                return None  # a pydantic response model (see the class docstring)
            key = self.def_name(mod, name)
            if key not in self.defs:
                self.defs[key] = None  # placeholder while converting (recursive types)
                self.defs[key] = self.typeddict(mod, cls)
                self.order.append(key)
            return {"$ref": f"#/$defs/{key}"}
        fail(f"{modname}: {ident!r} ({kind} {mod}.{name}) is not a type this script reads")

    def fields(self, modname, cls):
        """[(wire name, schema, required)] of a TypedDict, inherited fields first."""
        out = []
        for base in cls.bases:
            if isinstance(base, ast.Name):
                kind, mod, name = self.resolve(modname, base.id)
                if kind == "class":
                    out.extend(self.fields(mod, self.module(mod)["classes"][name]))
        total = True
        for kw in cls.keywords:
            if kw.arg == "total":
                total = ast.literal_eval(kw.value)
        for stmt in cls.body:
            if not isinstance(stmt, ast.AnnAssign):
                continue
            wire = stmt.target.id
            marks = self.marks(modname, stmt.annotation)
            if "alias" in marks:
                wire = marks["alias"]
            required = marks.get("required", total)
            schema = self.convert(modname, stmt.annotation)
            if schema is None:
                fail(f"{modname}.{cls.name}.{stmt.target.id}: no wire type")
            out = [f for f in out if f[0] != wire]
            out.append((wire, schema, required))
        return out

    def marks(self, modname, node):
        """Required/NotRequired and a PropertyInfo alias on a field's annotation."""
        marks = {}
        while isinstance(node, ast.Subscript):
            head = self.head(modname, node.value)
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head == "Required":
                marks["required"] = True
            elif head == "NotRequired":
                marks["required"] = False
            elif head == "Annotated":
                for extra in args[1:]:
                    if isinstance(extra, ast.Call) and getattr(extra.func, "id", "") == "PropertyInfo":
                        for kw in extra.keywords:
                            if kw.arg == "alias":
                                marks["alias"] = ast.literal_eval(kw.value)
            else:
                break
            node = args[0]
        return marks

    def typeddict(self, modname, cls):
        props, required = {}, []
        for wire, schema, req in self.fields(modname, cls):
            props[wire] = schema
            if req:
                required.append(wire)
        out = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        if cls.name not in self.module(modname)["open"]:
            out["additionalProperties"] = False
        return out


def union(schemas):
    schemas = [s for s in schemas if s is not None]
    flat = []
    for s in schemas:
        alts = s["anyOf"] if set(s) == {"anyOf"} else [s]
        for alt in alts:
            if alt not in flat:
                flat.append(alt)
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else {"anyOf": flat}


def short_names(defs, root):
    """Definition names without their module where the class name alone is unique."""
    count = {}
    for key in defs:
        count[key.rsplit(".", 1)[1]] = count.get(key.rsplit(".", 1)[1], 0) + 1
    rename = {key: key.rsplit(".", 1)[1] if count[key.rsplit(".", 1)[1]] == 1 else key for key in defs}
    text = json.dumps(defs)
    for old, new in rename.items():
        text = text.replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"')
    renamed = json.loads(text)
    return rename[root], {rename[k]: v for k, v in renamed.items()}


def from_anthropic(mirror):
    conv = TypedDicts(mirror)
    top = conv.convert("message_create_params", ast.parse("MessageCreateParams", mode="eval").body)
    defs = {key: conv.defs[key] for key in conv.order}
    # The root is a union of the streaming and non-streaming variants: a definition of its own.
    defs["message_create_params.MessageCreateParams"] = top
    root, defs = short_names(defs, "message_create_params.MessageCreateParams")
    files = sorted(mod["path"] for mod in conv.modules.values())
    entry = f"{TypedDicts.PACKAGE}/message_create_params.py"
    return root, defs, [entry] + [f for f in files if f != entry]


# ---------------------------------------------------------------------------------------------
# Gemini's protos


PROTO_TOKEN = re.compile(
    r'\s+|//[^\n]*|/\*.*?\*/|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[A-Za-z_][\w.]*|\.[A-Za-z_][\w.]*'
    r"|-?[0-9][\w.+-]*|[{}\[\]()<>=;,:]",
    re.S,
)


def proto_tokens(text, where):
    out, i = [], 0
    while i < len(text):
        m = PROTO_TOKEN.match(text, i)
        if not m:
            fail(f"{where}: cannot read {text[i:i + 30]!r}")
        tok = m.group(0)
        if not (tok.isspace() or tok.startswith("//") or tok.startswith("/*")):
            out.append(tok)
        i = m.end()
    return out


class Protos:
    """The messages and enums of proto files, and their proto3 JSON schemas.

    * Field names are the JSON names: `json_name` when given, else lowerCamelCase (protoc's rule).
      (Parsers also take the original snake_case names; the bodies here send the JSON names.)
    * A message is an object with exactly its fields (`additionalProperties: false`: the API
      refuses unknown names); a `oneof` allows at most one of its fields.
    * `(google.api.field_behavior) = REQUIRED` makes a field required; a required repeated field
      needs an element (proto3 cannot tell an empty list from none).
    * int64 kinds are strings or integers, other integers integers, float and double numbers,
      bytes base64 strings, enums their value names; google.protobuf.Struct is an object, Value
      any JSON, Duration, Timestamp and FieldMask strings (the proto3 JSON mapping).
    """

    PACKAGE_DIR = "google/ai/generativelanguage/v1beta"
    INT64 = {"int64", "uint64", "sint64", "fixed64", "sfixed64"}
    INT32 = {"int32", "uint32", "sint32", "fixed32", "sfixed32"}
    WELL_KNOWN = {
        "google.protobuf.Struct": {"type": "object"},
        "google.protobuf.Value": {},
        "google.protobuf.ListValue": {"type": "array"},
        "google.protobuf.Duration": {"type": "string"},
        "google.protobuf.Timestamp": {"type": "string"},
        "google.protobuf.FieldMask": {"type": "string"},
        "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
    }

    def __init__(self, mirror):
        self.mirror = mirror
        self.types = {}  # full name -> ("message", fields, oneofs) | ("enum", names)
        self.loaded = set()
        self.sources = []
        self.services = {}

    def load(self, path):
        if path in self.loaded or path.startswith("google/protobuf/"):
            return
        self.loaded.add(path)
        text = self.mirror.read(path)
        self.sources.append(path)
        toks = proto_tokens(text, path)
        package = ""
        i = 0
        while i < len(toks):
            tok = toks[i]
            if tok in ("syntax", "option", "edition"):
                i = toks.index(";", i) + 1
            elif tok == "package":
                package = toks[i + 1]
                i += 3
            elif tok == "import":
                target = toks[i + 1]
                if target in ("public", "weak"):
                    target = toks[i + 2]
                self.load(json.loads(target))
                i = toks.index(";", i) + 1
            elif tok == "message":
                i = self.message(toks, i, package, path)
            elif tok == "enum":
                i = self.enum(toks, i, package)
            elif tok in ("service", "extend"):
                if tok == "service":
                    self.services[toks[i + 1]] = text
                i = skip_block(toks, toks.index("{", i))
            else:
                fail(f"{path}: unexpected {tok!r}")

    def message(self, toks, i, scope, path):
        name = f"{scope}.{toks[i + 1]}" if scope else toks[i + 1]
        if toks[i + 2] != "{":
            fail(f"{path}: message {name} without a body")
        fields, oneofs = [], []
        self.types[name] = ("message", fields, oneofs, name)
        i += 3
        group = None
        while True:
            tok = toks[i]
            if tok == "}":
                if group is not None:
                    group = None
                    i += 1
                    continue
                return i + 1
            if tok == "message":
                i = self.message(toks, i, name, path)
            elif tok == "enum":
                i = self.enum(toks, i, name)
            elif tok in ("option", "reserved", "extensions"):
                i = toks.index(";", i) + 1
            elif tok == "oneof":
                group = []
                oneofs.append(group)
                i += 3
            elif tok == ";":
                i += 1
            else:
                i, field = self.field(toks, i, path, name)
                fields.append(field)
                if group is not None:
                    group.append(field["json"])

    def field(self, toks, i, path, owner):
        label = None
        if toks[i] in ("optional", "repeated", "required"):
            label = toks[i]
            i += 1
        if toks[i] == "map":
            key, value = toks[i + 2], toks[i + 4]
            if toks[i + 1] != "<" or toks[i + 3] != "," or toks[i + 5] != ">":
                fail(f"{path}: {owner}: malformed map field")
            ftype, i = ("map", key, value), i + 6
        else:
            ftype, i = toks[i], i + 1
        name = toks[i]
        if toks[i + 1] != "=":
            fail(f"{path}: {owner}.{name}: expected '='")
        i += 3
        options = {}
        if toks[i] == "[":
            i, options = field_options(toks, i + 1, path)
        if toks[i] != ";":
            fail(f"{path}: {owner}.{name}: expected ';', got {toks[i]!r}")
        json_name = options.get("json_name")
        json_name = json.loads(json_name) if json_name else lower_camel(name)
        behavior = options.get("(google.api.field_behavior)", [])
        return i + 1, {
            "name": name, "json": json_name, "type": ftype, "label": label, "scope": owner,
            "required": "REQUIRED" in behavior,
        }

    def enum(self, toks, i, scope):
        name = f"{scope}.{toks[i + 1]}" if scope else toks[i + 1]
        i += 3
        values = []
        while toks[i] != "}":
            if toks[i] in ("option", "reserved"):
                i = toks.index(";", i) + 1
                continue
            values.append(toks[i])
            i = toks.index(";", i) + 1
        self.types[name] = ("enum", values)
        return i + 1

    def lookup(self, ref, scope):
        """The full name of type `ref` used inside `scope` (protobuf's scoping rules)."""
        if ref.startswith("."):
            return ref[1:]
        parts = scope.split(".")
        while parts:
            candidate = ".".join([*parts, ref])
            if candidate in self.types or candidate in self.WELL_KNOWN:
                return candidate
            parts.pop()
        if ref in self.types or ref in self.WELL_KNOWN:
            return ref
        fail(f"cannot resolve proto type {ref!r} in {scope}")

    def short(self, full):
        prefix = "google.ai.generativelanguage.v1beta."
        return full[len(prefix):] if full.startswith(prefix) else full

    def schema_of(self, ftype, scope, todo):
        if isinstance(ftype, tuple):
            return {"type": "object", "additionalProperties": self.schema_of(ftype[2], scope, todo)}
        if ftype in self.INT64:
            return {"type": ["string", "integer"]}
        if ftype in self.INT32:
            return {"type": "integer"}
        simple = {"float": "number", "double": "number", "bool": "boolean", "string": "string",
                  "bytes": "string"}
        if ftype in simple:
            return {"type": simple[ftype]}
        full = self.lookup(ftype, scope)
        if full in self.WELL_KNOWN:
            return dict(self.WELL_KNOWN[full])
        todo.append(full)
        return {"$ref": f"#/$defs/{self.short(full)}"}

    def definitions(self, root, body_excludes):
        defs, todo, seen = {}, [root], set()
        while todo:
            full = todo.pop(0)
            if full in seen:
                continue
            seen.add(full)
            kind = self.types[full]
            if kind[0] == "enum":
                defs[self.short(full)] = {"enum": kind[1]}
                continue
            _, fields, oneofs, _ = kind
            props, required = {}, []
            for f in fields:
                if full == root and f["name"] in body_excludes:
                    continue
                schema = self.schema_of(f["type"], full, todo)
                if f["label"] == "repeated":
                    schema = {"type": "array", "items": schema}
                    if f["required"]:
                        schema["minItems"] = 1
                props[f["json"]] = schema
                if f["required"]:
                    required.append(f["json"])
            out = {"type": "object", "properties": props}
            if required:
                out["required"] = required
            out["additionalProperties"] = False
            groups = [g for g in oneofs if len(g) > 1]
            constraints = [at_most_one(g) for g in groups]
            if len(constraints) == 1:
                out.update(constraints[0])
            elif constraints:
                out["allOf"] = constraints
            defs[self.short(full)] = out
        return defs

    def path_fields(self, service, rpc):
        """The request fields a REST binding takes from the URL (`body: "*"` takes the rest)."""
        text = self.services[service]
        m = re.search(rf"rpc\s+{rpc}\s*\(.*?option\s*\(google\.api\.http\)\s*=\s*\{{(.*?)\}};", text, re.S)
        if not m:
            fail(f"no HTTP rule for {service}.{rpc}")
        rule = m.group(1)
        body = re.search(r'body:\s*"([^"]*)"', rule)
        if not body or body.group(1) != "*":
            fail(f"{service}.{rpc}: the body is not the whole request")
        post = re.search(r'post:\s*"([^"]*)"', rule).group(1)
        return post, re.findall(r"\{(\w+)=", post)


def at_most_one(group):
    """At most one of the fields of a `oneof`: each branch allows one of them (or none)."""
    return {"anyOf": [{"properties": {other: False for other in group if other != keep}} for keep in group]}


def skip_block(toks, i):
    depth = 0
    while True:
        if toks[i] == "{":
            depth += 1
        elif toks[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1


def field_options(toks, i, path):
    """Options of a field up to `]`: name -> value (repeated names collect a list)."""
    options = {}
    while True:
        name = toks[i]
        if name == "(":
            name = "(" + toks[i + 1] + ")"
            i += 2
        i += 1
        if toks[i] != "=":
            fail(f"{path}: malformed field option {name}")
        i += 1
        if toks[i] == "{":
            i = skip_block(toks, i)
            value = None
        else:
            value = toks[i]
            i += 1
        if name == "(google.api.field_behavior)":
            options.setdefault(name, []).append(value)
        else:
            options[name] = value
        if toks[i] == "]":
            return i + 1, options
        if toks[i] != ",":
            fail(f"{path}: expected ',' between field options, got {toks[i]!r}")
        i += 1


def lower_camel(name):
    """protoc's JSON name: underscores removed, the letter after each one upper-cased."""
    out, upper = [], False
    for ch in name:
        if ch == "_":
            upper = True
        elif upper:
            out.append(ch.upper())
            upper = False
        else:
            out.append(ch)
    return "".join(out)


def from_gemini(mirror):
    protos = Protos(mirror)
    protos.load(f"{Protos.PACKAGE_DIR}/generative_service.proto")
    post, from_url = protos.path_fields("GenerativeService", "GenerateContent")
    root = "google.ai.generativelanguage.v1beta.GenerateContentRequest"
    defs = protos.definitions(root, set(from_url))
    entry = protos.sources[0]
    files = [entry] + sorted(f for f in protos.sources if f != entry)
    return protos.short(root), defs, post, from_url, files


# ---------------------------------------------------------------------------------------------
# Output


def check_keywords(node, where):
    """Every keyword of the output is one KEEP names (the validator implements exactly these)."""
    if isinstance(node, bool):
        return
    for key, value in node.items():
        if key not in KEEP or key == "oneOf":
            fail(f"{where}: keyword {key!r} in the output")
        if key == "properties":
            for name, sub in value.items():
                check_keywords(sub, f"{where}/{name}")
        elif key in SCHEMA_LISTS:
            for i, sub in enumerate(value):
                check_keywords(sub, f"{where}/{key}[{i}]")
        elif key in SCHEMA_VALUES:
            check_keywords(value, f"{where}/{key}")


def write(name, title, root, defs, source):
    for def_name, schema in defs.items():
        check_keywords(schema, def_name)
    head = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": f"{title}. Generated by conformance/gen_provider_specs.py; do not edit.",
        "x-source": source,
        "$ref": f"#/$defs/{root}",
    }
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    lines.append('  "$defs": {')
    items = list(defs.items())
    for n, (def_name, schema) in enumerate(items):
        comma = "," if n + 1 < len(items) else ""
        lines.append(f"    {json.dumps(def_name)}: {json.dumps(schema, ensure_ascii=False)}{comma}")
    lines.append("  }")
    lines.append("}")
    (OUT / f"{name}.schema.json").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("--read-date", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []

    def source(mirror, paths, what, read=args.read_date):
        return {
            "repository": f"https://github.com/{mirror.repo}",
            "commit": mirror.commit,
            "commit_date": mirror.date,
            "files": [mirror.url(p) for p in paths],
            "what": what,
            "read": read,
        }

    openai = Mirror(args.mirrors, "openai/openai-openapi")
    doc = json.loads(openai.read("openapi.json"))
    for name, path, title in [
        ("openai-chat-completions", "/chat/completions",
         "OpenAI chat completions request body (also SGLang, DeepSeek, Tencent Cloud DeepSeek)"),
        ("openai-responses", "/responses", "OpenAI Responses request body"),
        ("openai-completions", "/completions", "OpenAI legacy completions request body"),
    ]:
        root, defs = from_openapi(doc, path, "openapi.json")
        what = f"components.schemas.{root}: the JSON body of POST {path}"
        src = source(openai, ["openapi.json"], what)
        write(name, title, root, defs, src)
        rows.append((name, title, src, len(defs)))

    anthropic = Mirror(args.mirrors, "anthropics/anthropic-sdk-python")
    root, defs, files = from_anthropic(anthropic)
    what = "MessageCreateParams (TypedDicts of src/anthropic/types/), the JSON body of POST /v1/messages"
    src = source(anthropic, files, what)
    write("anthropic-messages", "Anthropic Messages request body", root, defs, src)
    rows.append(("anthropic-messages", "Anthropic Messages request body", src, len(defs)))

    google = Mirror(args.mirrors, "googleapis/googleapis")
    root, defs, post, from_url, files = from_gemini(google)
    what = (f"{root} as the REST body of POST {post} (body \"*\"; "
            f"{', '.join(from_url)} is in the URL), proto3 JSON names")
    src = source(google, files, what)
    write("gemini-generate-content", "Gemini generateContent request body", root, defs, src)
    rows.append(("gemini-generate-content", "Gemini generateContent request body", src, len(defs)))

    ollama = Mirror(args.mirrors, "ollama/ollama")
    doc = read_yaml(ollama.read("docs/openapi.yaml"), "docs/openapi.yaml")
    root, defs = from_openapi(doc, "/api/chat", "docs/openapi.yaml")
    what = f"components.schemas.{root} of the OpenAPI document: the JSON body of POST /api/chat"
    src = source(ollama, ["docs/openapi.yaml"], what)
    write("ollama-chat", "Ollama /api/chat request body", root, defs, src)
    rows.append(("ollama-chat", "Ollama /api/chat request body", src, len(defs)))

    write_sources(rows, args.read_date)


def write_sources(rows, read):
    out = [
        "# Provider request schemas",
        "",
        "Generated by `python3 conformance/gen_provider_specs.py` (its docstring says how the",
        "providers' specifications are converted); do not edit. `tests/it/provider_specs.rs`",
        "validates every golden request body against them. Read on " + read + ".",
        "",
        "| file | schema of | source (repository at commit, commit date) | definitions |",
        "| --- | --- | --- | --- |",
    ]
    for name, title, src, count in rows:
        repo = src["repository"].removeprefix("https://github.com/")
        out.append(
            f"| `{name}.schema.json` | {title}: {src['what']} | "
            f"[{repo}]({src['repository']}/tree/{src['commit']}) at `{src['commit']}` "
            f"({src['commit_date']}) | {count} |"
        )
    out.append("")
    out.append("The entry file of each (every file read is listed in the schema's `x-source`):")
    out.append("")
    for name, _, src, _ in rows:
        more = len(src["files"]) - 1
        extra = f", and {more} more" if more else ""
        out.append(f"- `{name}`: <{src['files'][0]}>{extra}")
    (OUT / "SOURCES.md").write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
