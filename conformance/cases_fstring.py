"""Conformance cases for the `fstring` engine: CPython's `template.format_map(json.loads(vars))`.

Each case is `(id, template, vars_json)`; `vars_json` is JSON text (number literals such as `1.0`,
`-0.0`, `1e400` and 30-digit integers reach both sides exactly). Ids are stable: never renumber,
only add. Regenerate the data with `python3 conformance/generate.py`.
"""

CASES = []


def case(case_id, template, vars_json="{}"):
    CASES.append((case_id, template, vars_json))


# ---------------------------------------------------------------------------------------------
# Literal text and brace escapes
# ---------------------------------------------------------------------------------------------
case("literal-empty", "")
case("literal-plain", "Hello, world!")
case("literal-multiline", "line one\nline two\n\n  indented\ttab\r\nwindows\n")
case("literal-chinese", "你好，世界。请用中文回答。")
case("literal-emoji", "emoji 😀👍🏽 family 👨‍👩‍👧 flag 🇨🇳")
case("literal-escaped-braces", "{{literal}} and }}{{", '{"literal": 1}')
case("literal-only-escapes", "{{}}")
case("literal-escaped-around-field", "{{{x}}}", '{"x": 5}')
case("literal-escaped-json-example", 'Reply as JSON: {{"answer": "{answer}"}}', '{"answer": "yes"}')
case("literal-quadruple-braces", "{{{{x}}}}", '{"x": 1}')
case("literal-nul-and-controls", "a\u0000b\u0007c\u001bd", "{}")
case("literal-backslashes", "C:\\path\\{name}\\n", '{"name": "dir"}')

# ---------------------------------------------------------------------------------------------
# Field names: keys, indexes, attributes
# ---------------------------------------------------------------------------------------------
case("field-simple", "Hi {name}!", '{"name": "Ada"}')
case("field-repeated", "{x}{x}{x}", '{"x": "ab"}')
case("field-adjacent", "{a}{b}{c}", '{"a": 1, "b": "two", "c": 3.0}')
case("field-chinese-key", "{名字}你好", '{"名字": "小明"}')
case("field-emoji-key", "{😀}", '{"😀": "smile"}')
case("field-key-with-space", "{a b}", '{"a b": "spaced"}')
case("field-key-leading-space", "{ x}", '{" x": "lead"}')
case("field-key-with-dash", "{a-b}", '{"a-b": "dash"}')
case("field-key-unused-extra-vars", "{a}", '{"a": 1, "b": 2, "c": {"d": []}}')
case("field-string-value-with-braces", "{x}", '{"x": "{not a field}"}')
case("field-dict-key", "{d[k]}", '{"d": {"k": "v"}}')
case("field-dict-key-with-space", "{d[a b]}", '{"d": {"a b": 1}}')
case("field-dict-key-with-dot", "{d[a.b]}", '{"d": {"a.b": "dotted"}}')
case("field-dict-key-quoted-is-literal", "{d['k']}", '{"d": {"\'k\'": "quoted key", "k": "plain"}}')
case("field-dict-key-chinese", "{d[键]}", '{"d": {"键": "值"}}')
case("field-dict-key-digits-is-int", "{d[0]}", '{"d": {"0": "zero"}}')
case("field-dict-key-negative-is-str", "{d[-1]}", '{"d": {"-1": "minus one"}}')
case("field-list-index", "{l[0]} {l[2]}", '{"l": ["a", "b", "c"]}')
case("field-list-index-leading-zeros", "{l[001]}", '{"l": ["a", "b"]}')
case("field-list-negative-index", "{l[-1]}", '{"l": ["a", "b"]}')
case("field-list-index-underscore", "{l[1_0]}", '{"l": [0, 1]}')
case("field-list-index-out-of-range", "{l[5]}", '{"l": [1, 2]}')
case("field-list-index-too-many-digits", "{l[99999999999999999999]}", '{"l": [1]}')
case("field-string-index", "{s[1]}", '{"s": "héllo"}')
case("field-string-index-out-of-range", "{s[9]}", '{"s": "abc"}')
case("field-string-index-emoji", "{s[1]}", '{"s": "a😀b"}')
case("field-nested-dict-list", "{d[users][1][name]}", '{"d": {"users": [{"name": "a"}, {"name": "b"}]}}')
case("field-nested-list-list", "{m[1][0]}", '{"m": [[1, 2], [3, 4]]}')
case("field-index-then-attr", "{l[0].real}", '{"l": [7]}')
case("field-int-real", "{x.real}", '{"x": 42}')
case("field-int-imag", "{x.imag}", '{"x": 42}')
case("field-int-numerator", "{x.numerator}", '{"x": -7}')
case("field-int-denominator", "{x.denominator}", '{"x": -7}')
case("field-bigint-real", "{x.real}", '{"x": 123456789012345678901234567890}')
case("field-float-real", "{x.real}", '{"x": 2.5}')
case("field-float-imag", "{x.imag}", '{"x": 2.5}')
case("field-bool-real", "{b.real}", '{"b": true}')
case("field-bool-imag", "{b.imag}", '{"b": true}')
case("field-attr-chain", "{x.real.real.imag}", '{"x": 3}')
case("field-attr-with-spec", "{x.real:>5}", '{"x": 3}')
case("field-attr-with-conversion", "{x.imag!r}", '{"x": 3.5}')
case("field-dict-index-then-spec", "{d[k]:*^7}", '{"d": {"k": "v"}}')
case("field-int-as-dict-key-chain", "{d[1][2]}", '{"d": {"1": {"2": "deep"}}}')

# ---------------------------------------------------------------------------------------------
# Conversions !s !r !a
# ---------------------------------------------------------------------------------------------
CONV_VALUES = [
    ("str-plain", '"hello"'),
    ("str-single-quote", '"it\'s"'),
    ("str-double-quote", '"say \\"hi\\""'),
    ("str-both-quotes", '"it\'s \\"x\\""'),
    ("str-escapes", '"tab\\tnl\\ncr\\rbs\\\\"'),
    ("str-controls", '"\\u0000\\u0007\\u001b\\u007f\\u0085"'),
    ("str-chinese", '"中文"'),
    ("str-emoji", '"hi 😀"'),
    ("str-nonprintable-unicode", '"\\u200b\\u00a0\\u2028\\ufeff"'),
    ("str-latin1", '"café ß"'),
    ("str-empty", '""'),
    ("none", "null"),
    ("true", "true"),
    ("false", "false"),
    ("int", "42"),
    ("int-negative", "-17"),
    ("int-big", "123456789012345678901234567890"),
    ("int-big-negative", "-98765432109876543210987654321"),
    ("float-1", "1.0"),
    ("float-neg-zero", "-0.0"),
    ("float-1e16", "1e16"),
    ("float-1e15", "1e15"),
    ("float-123456789012345678", "123456789012345678.0"),
    ("float-1e-05", "1e-05"),
    ("float-0.0001", "0.0001"),
    ("float-0.1", "0.1"),
    ("float-min-subnormal", "5e-324"),
    ("float-max", "1.7976931348623157e308"),
    ("float-inf", "1e400"),
    ("float-neg-inf", "-1e400"),
    ("float-third", "0.3333333333333333"),
    ("list", '[1, "a", null, true, 2.5]'),
    ("list-empty", "[]"),
    ("list-nested", '[[1, [2]], {"k": ["v"]}]'),
    ("list-quotes", '["it\'s", "say \\"x\\"", "中"]'),
    ("dict", '{"b": 1, "a": [true, null], "c": "x"}'),
    ("dict-empty", "{}"),
    ("dict-unicode", '{"键": "值", "e": "😀"}'),
]
for slug, value in CONV_VALUES:
    vars_json = '{"x": ' + value + "}"
    case(f"value-{slug}", "{x}", vars_json)
    case(f"conv-r-{slug}", "{x!r}", vars_json)
for slug in ("str-plain", "str-single-quote", "str-chinese", "str-emoji", "str-controls",
             "str-nonprintable-unicode", "str-latin1", "list-quotes", "dict-unicode", "int-big", "none"):
    value = dict(CONV_VALUES)[slug]
    case(f"conv-a-{slug}", "{x!a}", '{"x": ' + value + "}")
for slug in ("str-plain", "none", "float-1", "list", "dict"):
    value = dict(CONV_VALUES)[slug]
    case(f"conv-s-{slug}", "{x!s}", '{"x": ' + value + "}")
case("conv-r-with-spec", "[{x!r:>12}]", '{"x": "abc"}')
case("conv-s-with-spec-on-none", "[{x!s:^8}]", '{"x": null}')
case("conv-r-list-with-spec", "[{x!r:_<12}]", '{"x": [1, 2]}')
case("conv-a-emoji-with-spec", "[{x!a:.5}]", '{"x": "😀😀"}')
case("conv-r-then-int-spec-error", "{x!r:d}", '{"x": 5}')
case("conv-s-bool-with-width", "[{b!s:>6}]", '{"b": true}')

# ---------------------------------------------------------------------------------------------
# Format-spec mini-language on ints
# ---------------------------------------------------------------------------------------------
INT_SPECS = [
    ("none", ""),
    ("d", "d"),
    ("b", "b"),
    ("o", "o"),
    ("x", "x"),
    ("X", "X"),
    ("n", "n"),
    ("c", "c"),
    ("alt-b", "#b"),
    ("alt-o", "#o"),
    ("alt-x", "#x"),
    ("alt-X", "#X"),
    ("e", "e"),
    ("E", "E"),
    ("f", "f"),
    ("F", "F"),
    ("g", "g"),
    ("G", "G"),
    ("percent", "%"),
    ("prec2-f", ".2f"),
    ("prec3-e", ".3e"),
    ("sign-plus", "+"),
    ("sign-space", " "),
    ("sign-minus", "-d"),
    ("width12", "12"),
    ("left12", "<12"),
    ("right12", ">12"),
    ("center12", "^12"),
    ("eq12", "=12"),
    ("star-center15", "*^15"),
    ("zero-pad12", "012"),
    ("zero-pad-sign-plus-grouping", "+020,"),
    ("grouping-comma", ","),
    ("grouping-underscore", "_"),
    ("grouping-underscore-x", "_x"),
    ("grouping-underscore-alt-b", "#_b"),
    ("grouping-underscore-o", "_o"),
    ("grouping-comma-x-error", ",x"),
    ("grouping-comma-f", ",.1f"),
    ("zero-pad-alt-x", "#012x"),
    ("fill-eq-alt-X", "0=#14X"),
    ("precision-error", ".3"),
    ("z-error", "z"),
    ("s-error", "s"),
    ("grouping-comma-n-error", ",n"),
    ("both-groupings-error", ",_"),
]
INT_VALUES = [
    ("1234567", "1234567"),
    ("neg255", "-255"),
    ("big", "123456789012345678901234567890"),
]
for vslug, value in INT_VALUES:
    for sslug, spec in INT_SPECS:
        case(f"spec-int-{vslug}-{sslug}", "{x:" + spec + "}", '{"x": ' + value + "}")
case("spec-int-zero-none", "{x}", '{"x": 0}')
case("spec-int-zero-alt-x", "{x:#x}", '{"x": 0}')
case("spec-int-c-ascii", "{x:c}", '{"x": 65}')
case("spec-int-c-chinese", "{x:c}", '{"x": 20013}')
case("spec-int-c-emoji", "{x:c}", '{"x": 128512}')
case("spec-int-c-max", "{x:c}", '{"x": 1114111}')
case("spec-int-c-too-large", "{x:c}", '{"x": 1114112}')
case("spec-int-c-with-width", "[{x:*^5c}]", '{"x": 97}')
case("spec-int-c-sign-error", "{x:+c}", '{"x": 97}')
case("spec-int-c-alt-error", "{x:#c}", '{"x": 97}')
case("spec-int-u64max-x", "{x:x}", '{"x": 18446744073709551615}')
case("spec-int-i64min-b", "{x:b}", '{"x": -9223372036854775808}')
case("spec-int-i64min-minus-one", "{x:,}", '{"x": -9223372036854775809}')
case("spec-int-big-negative-alt-o-width", "{x:#40o}", '{"x": -98765432109876543210987654321}')
case("spec-int-big-underscore-b", "{x:_b}", '{"x": 340282366920938463463374607431768211455}')
case("spec-int-big-e-rounding", "{x:.5e}", '{"x": 99999999999999999999999999999}')
case("spec-int-huge-to-f-overflow", "{x:f}", '{"x": ' + "1" + "0" * 400 + "}")
case("spec-int-huge-to-e-overflow", "{x:e}", '{"x": ' + "-" + "9" * 320 + "}")
case("spec-int-huge-to-percent-overflow", "{x:%}", '{"x": ' + "1" + "0" * 309 + "}")
case("spec-int-huge-to-g-overflow", "{x:g}", '{"x": ' + "1" + "0" * 309 + "}")
case("spec-int-huge-d-ok", "{x:,}", '{"x": ' + "1" + "0" * 100 + "}")
case("spec-int-2pow53-plus-1-f", "{x:f}", '{"x": 9007199254740993}')
case("spec-int-2pow53-plus-1-g", "{x:.17g}", '{"x": 9007199254740993}')
case("spec-int-n-big", "{x:n}", '{"x": 123456789012345678901234567890}')
case("spec-int-width-zero-neg", "{x:08}", '{"x": -42}')
case("spec-int-width-zero-center", "{x:0^8}", '{"x": -42}')
case("spec-int-space-sign-width", "[{x: 6}]", '{"x": 42}')
case("spec-int-fill-lt-right", "{x:<>6}", '{"x": 42}')
case("spec-int-fill-gt-left", "{x:><6}", '{"x": 42}')
case("spec-int-fill-colon", "{x::^7}", '{"x": 42}')
case("spec-int-fill-zero-left", "{x:0<6}", '{"x": 42}')
case("spec-int-fill-chinese", "{x:中^7}", '{"x": 42}')
case("spec-int-fill-emoji", "{x:😀>5}", '{"x": 42}')
case("spec-int-width-leading-zeros", "{x:0005}", '{"x": 42}')
case("spec-int-grouping-pad-comma", "{x:012,}", '{"x": 1234}')
case("spec-int-grouping-pad-underscore-x", "{x:#012_x}", '{"x": 48879}')
case("spec-int-percent-precision", "{x:.1%}", '{"x": 3}')

# ---------------------------------------------------------------------------------------------
# Format-spec mini-language on floats
# ---------------------------------------------------------------------------------------------
FLOAT_SPECS = [
    ("none", ""),
    ("e", "e"),
    ("E", "E"),
    ("f", "f"),
    ("F", "F"),
    ("g", "g"),
    ("G", "G"),
    ("n", "n"),
    ("percent", "%"),
    ("prec0-f", ".0f"),
    ("prec2-f", ".2f"),
    ("prec30-f", ".30f"),
    ("prec50-e", ".50e"),
    ("prec3-g", ".3g"),
    ("prec0-g", ".0g"),
    ("prec17-g", ".17g"),
    ("prec4-none", ".4"),
    ("alt-prec0-f", "#.0f"),
    ("alt-g", "#g"),
    ("alt-none-prec3", "#.3"),
    ("sign-plus-f", "+.2f"),
    ("sign-space-f", " .2f"),
    ("eq-plus-width-f", "=+14.2f"),
    ("star-center-f", "*^16.3f"),
    ("zero-pad-f", "012.3f"),
    ("grouping-comma-f", ",.2f"),
    ("grouping-underscore-f", "_.3f"),
    ("grouping-comma-none", ","),
    ("prec3-percent", ".3%"),
    ("z-f", "z.1f"),
    ("width10", "10"),
    ("left10", "<10"),
    ("d-error", "d"),
    ("x-error", "x"),
    ("c-error", "c"),
]
FLOAT_VALUES = [
    ("pi", "3.141592653589793"),
    ("neg1234.5678", "-1234.5678"),
    ("1e16", "1e16"),
    ("1e-07", "1e-07"),
]
for vslug, value in FLOAT_VALUES:
    for sslug, spec in FLOAT_SPECS:
        case(f"spec-float-{vslug}-{sslug}", "{x:" + spec + "}", '{"x": ' + value + "}")
SPECIAL_FLOAT_SPECS = [
    ("none", ""),
    ("f", "f"),
    ("E", "E"),
    ("G", "G"),
    ("percent", "%"),
    ("sign-plus", "+"),
    ("zero-pad", "010"),
    ("zero-pad-comma", "010,"),
    ("star-center", "*^10"),
    ("eq-width", "=+10"),
    ("z-f", "z.2f"),
]
for vslug, value in (("inf", "1e400"), ("neg-inf", "-1e400"), ("neg-zero", "-0.0")):
    for sslug, spec in SPECIAL_FLOAT_SPECS:
        case(f"spec-float-{vslug}-{sslug}", "[{x:" + spec + "}]", '{"x": ' + value + "}")
# Rounding: binary floats round by their exact value, ties to even.
case("spec-float-round-0.125-2f", "{x:.2f}", '{"x": 0.125}')
case("spec-float-round-0.375-2f", "{x:.2f}", '{"x": 0.375}')
case("spec-float-round-2.675-2f", "{x:.2f}", '{"x": 2.675}')
case("spec-float-round-1.005-2f", "{x:.2f}", '{"x": 1.005}')
case("spec-float-round-0.5-0f", "{x:.0f}", '{"x": 0.5}')
case("spec-float-round-1.5-0f", "{x:.0f}", '{"x": 1.5}')
case("spec-float-round-2.5-0f", "{x:.0f}", '{"x": 2.5}')
case("spec-float-round-neg-0.5-0f", "{x:.0f}", '{"x": -0.5}')
case("spec-float-round-neg-small-z", "{x:z.1f}", '{"x": -0.04}')
case("spec-float-round-neg-small-no-z", "{x:.1f}", '{"x": -0.04}')
case("spec-float-round-9.995-2f", "{x:.2f}", '{"x": 9.995}')
case("spec-float-round-carry-e", "{x:.2e}", '{"x": 9.999}')
case("spec-float-round-carry-g", "{x:.3g}", '{"x": 999.5}')
case("spec-float-0.1-prec30-f", "{x:.30f}", '{"x": 0.1}')
case("spec-float-0.1-prec60-e", "{x:.60e}", '{"x": 0.1}')
case("spec-float-min-subnormal-e", "{x:.20e}", '{"x": 5e-324}')
case("spec-float-min-subnormal-f-prec330", "{x:.330f}", '{"x": 5e-324}')
case("spec-float-max-f", "{x:f}", '{"x": 1.7976931348623157e308}')
case("spec-float-max-comma", "{x:,.0f}", '{"x": 1.7976931348623157e308}')
case("spec-float-g-switch-1e-05", "{x:g}", '{"x": 1e-05}')
case("spec-float-g-switch-0.0001", "{x:g}", '{"x": 0.0001}')
case("spec-float-g-switch-123456", "{x:g}", '{"x": 123456.0}')
case("spec-float-g-switch-1234567", "{x:g}", '{"x": 1234567.0}')
case("spec-float-none-prec-switch", "{x:.3}", '{"x": 1234.5}')
case("spec-float-none-1e15", "{x:}", '{"x": 1e15}')
case("spec-float-none-with-width-1e16", "{x:>12}", '{"x": 1e16}')
case("spec-float-integral-none", "{x:}", '{"x": 2.0}')
case("spec-float-integral-none-prec", "{x:.5}", '{"x": 2.0}')
case("spec-float-integral-alt-none", "{x:#.5}", '{"x": 2.0}')
case("spec-float-n-big", "{x:n}", '{"x": 1234567.125}')
case("spec-float-fill-chinese", "{x:中^12.2f}", '{"x": 3.14159}')
case("spec-float-zero-pad-neg-comma", "{x:012,.1f}", '{"x": -1234.5}')
case("spec-float-zero-pad-percent", "{x:08.1%}", '{"x": 0.25}')
case("spec-float-precision-too-big", "{x:.99999999999f}", '{"x": 1.5}')
case("spec-float-width-too-big", "{x:99999999999999999999}", '{"x": 1.5}')

# ---------------------------------------------------------------------------------------------
# Format-spec mini-language on strings
# ---------------------------------------------------------------------------------------------
STR_SPECS = [
    ("none", ""),
    ("s", "s"),
    ("width10", "10"),
    ("left10", "<10"),
    ("right10", ">10"),
    ("center10", "^10"),
    ("center11", "^11"),
    ("star-center11", "*^11"),
    ("prec3", ".3"),
    ("width10-prec3", "10.3"),
    ("center-prec2-s", "^9.2s"),
    ("zero-pad", "010"),
    ("prec0", ".0"),
    ("eq-error", "=10"),
    ("sign-error", "+"),
    ("alt-error", "#"),
    ("comma-error", ","),
    ("comma-s-error", ",s"),
    ("d-error", "d"),
    ("z-error", "z"),
]
STR_VALUES = [
    ("abc", '"abc"'),
    ("chinese", '"中文字"'),
    ("emoji", '"😀x👍"'),
]
for vslug, value in STR_VALUES:
    for sslug, spec in STR_SPECS:
        case(f"spec-str-{vslug}-{sslug}", "[{x:" + spec + "}]", '{"x": ' + value + "}")
case("spec-str-longer-than-width", "[{x:3}]", '{"x": "abcdef"}')
case("spec-str-empty-center", "[{x:-^6}]", '{"x": ""}')
case("spec-str-combining", "[{x:>4}]", '{"x": "e\\u0301"}')

# ---------------------------------------------------------------------------------------------
# Fill characters that are braces or specials (only reachable through nested fields)
# ---------------------------------------------------------------------------------------------
case("fill-open-brace-nested", "{x:{f}^9}", '{"x": "ab", "f": "{"}')
case("fill-close-brace-nested", "{x:{f}>6}", '{"x": 42, "f": "}"}')
case("fill-open-brace-literal-unclosed", "{x:{^9}", '{"x": "ab"}')
case("fill-close-brace-literal", "{x:}>6}", '{"x": "ab"}')
case("fill-space-right", "[{x: >6}]", '{"x": "ab"}')
case("fill-newline", "{x:\n^5}", '{"x": "ab"}')
case("fill-only-no-align", "{x:*10}", '{"x": "ab"}')

# ---------------------------------------------------------------------------------------------
# Bool, None, list, dict with and without spec
# ---------------------------------------------------------------------------------------------
case("spec-bool-none", "{b}", '{"b": true}')
case("spec-bool-empty-spec", "{b:}", '{"b": false}')
case("spec-bool-width-is-int", "[{b:>6}]", '{"b": true}')
case("spec-bool-d", "{b:d}", '{"b": true}')
case("spec-bool-x", "{b:x}", '{"b": true}')
case("spec-bool-f", "{b:.2f}", '{"b": false}')
case("spec-bool-percent", "{b:%}", '{"b": true}')
case("spec-bool-c", "{b:c}", '{"b": true}')
case("spec-bool-s-error", "{b:s}", '{"b": true}')
case("spec-none-empty-spec", "{n:}", '{"n": null}')
case("spec-none-width-error", "{n:>5}", '{"n": null}')
case("spec-none-s-error", "{n:s}", '{"n": null}')
case("spec-list-empty-spec", "{l:}", '{"l": [1, "a"]}')
case("spec-list-width-error", "{l:>10}", '{"l": [1, "a"]}')
case("spec-dict-empty-spec", "{d:}", '{"d": {"k": "v"}}')
case("spec-dict-d-error", "{d:d}", '{"d": {"k": "v"}}')
case("spec-list-str-conversion-width", "[{l!s:^14}]", '{"l": [1, "a"]}')

# ---------------------------------------------------------------------------------------------
# Nested replacement fields in specs
# ---------------------------------------------------------------------------------------------
case("nested-width", "[{x:{w}}]", '{"x": "ab", "w": 6}')
case("nested-width-str", "[{x:{w}}]", '{"x": "ab", "w": "6"}')
case("nested-all-parts", "[{x:{f}{a}{w}.{p}{t}}]", '{"x": 3.14159, "f": "*", "a": "^", "w": 12, "p": 3, "t": "f"}')
case("nested-width-precision", "[{x:{w}.{p}f}]", '{"x": 2.5, "w": 8, "p": 2}')
case("nested-whole-spec", "[{x:{spec}}]", '{"x": 255, "spec": "#010x"}')
case("nested-empty-spec", "[{x:{spec}}]", '{"x": 255, "spec": ""}')
case("nested-with-conversion", "[{x:{w!s}}]", '{"x": "ab", "w": 4}')
case("nested-with-index", "[{x:{d[w]}}]", '{"x": "ab", "d": {"w": 5}}')
case("nested-spec-of-spec", "[{x:{w:d}}]", '{"x": "ab", "w": 5}')
case("nested-missing-key", "{x:{w}}", '{"x": "ab"}')
case("nested-too-deep", "{x:{y:{z}}}", '{"x": 1, "y": 2, "z": 3}')
case("nested-bad-result-spec", "{x:{w}}", '{"x": 1, "w": "zz"}')
case("nested-result-float-width", "{x:{w}}", '{"x": 1, "w": 2.5}')
case("nested-fill-emoji", "{x:{f}<5}", '{"x": 1, "f": "😀"}')
case("nested-positional-error", "{x:{}}", '{"x": 1}')
case("nested-unclosed", "{x:{w}", '{"x": 1, "w": 3}')
case("nested-in-conversion-position", "{x!{c}}", '{"x": 1, "c": "r"}')

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
case("error-key-missing", "Hello {name}", "{}")
case("error-key-missing-after-text", "ok {a} then {b}", '{"a": 1}')
case("error-key-missing-chinese", "{名字}", "{}")
case("error-key-int-on-dict", "{d[0]}", '{"d": {"a": 1}}')
case("error-key-str-on-dict", "{d[x]}", '{"d": {"a": 1}}')
case("error-key-missing-before-syntax-error", "{missing} {", "{}")
case("error-syntax-before-missing-key", "{ {missing}", "{}")
case("error-index-list", "{l[3]}", '{"l": [1, 2, 3]}')
case("error-index-empty-list", "{l[0]}", '{"l": []}')
case("error-positional-index", "{0}", '{"0": "zero"}')
case("error-positional-auto", "{}", "{}")
case("error-positional-auto-with-spec", "{:>5}", "{}")
case("error-positional-index-attr", "{0.real}", "{}")
case("error-single-open-brace", "a { b", "{}")
case("error-single-open-brace-end", "abc{", "{}")
case("error-single-close-brace", "a } b", "{}")
case("error-single-close-brace-after-field", "{x}}", '{"x": 1}')
case("error-unclosed-field", "{x", '{"x": 1}')
case("error-unclosed-field-with-spec", "{x:>5", '{"x": 1}')
case("error-open-brace-inside-field", "{x{y}", '{"x": 1}')
case("error-unknown-conversion", "{x!z}", '{"x": 1}')
case("error-conversion-missing", "{x!}", '{"x": 1}')
case("error-conversion-too-long", "{x!rr}", '{"x": 1}')
case("error-conversion-end-of-string", "{x!", '{"x": 1}')
case("error-empty-attribute", "{x.}", '{"x": 1}')
case("error-empty-attribute-middle", "{x..real}", '{"x": 1}')
case("error-empty-index", "{d[]}", '{"d": {}}')
case("error-missing-close-bracket", "{d[0}", '{"d": [1]}')
case("error-junk-after-bracket", "{d[0]x}", '{"d": [1]}')
case("error-bad-spec-unknown-type", "{x:q}", '{"x": 1}')
case("error-bad-spec-trailing-junk", "{x:>5d5}", '{"x": 1}')
case("error-bad-spec-two-types", "{x:dd}", '{"x": 1}')
case("error-bad-spec-str-comma", "{x:,}", '{"x": "a"}')
case("error-bad-spec-str-comma-s", "{x:,s}", '{"x": "a"}')
case("error-bad-spec-float-comma-underscore", "{x:,_f}", '{"x": 1.5}')
case("error-bad-spec-int-precision", "{x:.2d}", '{"x": 1}')
case("error-bad-spec-float-n-comma", "{x:,n}", '{"x": 1.5}')
case("error-bad-spec-str-underscore", "{x:_}", '{"x": "a"}')
case("error-bad-spec-missing-precision", "{x:.f}", '{"x": 1.5}')
case("error-too-deep-nesting", "{x:{y:{z:{w}}}}", '{"x": 1, "y": 2, "z": 3, "w": 4}')
case("error-int-too-large-for-c", "{x:c}", '{"x": 1114112}')
case("error-negative-for-c", "{x:c}", '{"x": -1}')
case("error-attribute-int", "{x.foo}", '{"x": 1}')
case("error-attribute-dict", "{d.k}", '{"d": {"k": 1}}')
case("error-attribute-list", "{l.length}", '{"l": []}')
case("error-attribute-none", "{n.x}", '{"n": null}')
case("error-attribute-str", "{s.size}", '{"s": "abc"}')
case("error-attribute-float", "{f.numerator}", '{"f": 1.5}')
case("error-attribute-digits", "{x.0}", '{"x": 1}')
case("error-type-spec-on-none", "{n:d}", '{"n": null}')
case("error-type-spec-on-list", "{l:<3}", '{"l": [1]}')
case("error-type-spec-on-dict", "{d:^9}", '{"d": {}}')
case("error-type-list-index-by-str", "{l[x]}", '{"l": [1, 2]}')
case("error-type-int-not-subscriptable", "{x[0]}", '{"x": 5}')
case("error-type-none-not-subscriptable", "{n[k]}", '{"n": null}')
case("error-type-string-index-by-str", "{s[k]}", '{"s": "abc"}')
case("error-type-c-with-float", "{x:c}", '{"x": 65.0}')
case("error-type-nested-spec-none", "{x:{n}}", '{"x": 1, "n": null}')
case("error-overflow-huge-int-f", "{x:.2f}", '{"x": ' + "7" * 400 + "}")
case("error-overflow-huge-int-e", "{x:E}", '{"x": ' + "1" + "0" * 310 + "}")
case("error-value-float-as-int-type", "{x:b}", '{"x": 2.0}')
case("error-value-neg-zero-z-int", "{x:z}", '{"x": 0}')
case("error-first-error-wins", "{a.b} {c}", '{"a": 1}')

# ---------------------------------------------------------------------------------------------
# Realistic prompt templates
# ---------------------------------------------------------------------------------------------
case(
    "prompt-system-english",
    "You are {assistant_name}, a helpful assistant for {company}.\n"
    "Today the user asks about: {topic}.\n\n"
    "Rules:\n"
    "1. Answer in at most {max_words} words.\n"
    "2. Cite sources as [{{n}}].\n"
    "3. Confidence threshold: {threshold:.0%}.\n",
    '{"assistant_name": "Ada", "company": "Acme Corp", "topic": "billing", "max_words": 150, '
    '"threshold": 0.85}',
)
case(
    "prompt-system-chinese",
    "你是{角色}，请用{语言}回答用户的问题。\n"
    "用户：{user[name]}（等级 {user[level]}）\n"
    "问题：{question}\n"
    "要求：不超过{limit}字，语气{tone}。\n",
    '{"角色": "资深客服", "语言": "简体中文", "user": {"name": "张三", "level": 3}, '
    '"question": "我的订单什么时候发货？", "limit": 200, "tone": "友好"}',
)
case(
    "prompt-tool-call-json",
    'Call the tool with arguments: {{"query": "{query}", "top_k": {top_k}}}\n'
    "Context (repr): {context!r}\n",
    '{"query": "天气 in Beijing", "top_k": 5, "context": {"history": ["hi", "你好"], "lang": "zh"}}',
)
case(
    "prompt-table-report",
    "| {h0:<10} | {h1:>8} | {h2:^6} |\n"
    "| {r[0]:<10} | {r[1]:>8,.2f} | {r[2]:^6} |\n"
    "| {s[0]:<10} | {s[1]:>8,.2f} | {s[2]:^6} |\n",
    '{"h0": "item", "h1": "price", "h2": "qty", "r": ["apple", 1234.5, 3], "s": ["梨", 0.125, 10]}',
)
case(
    "prompt-few-shot",
    "Q: {examples[0][q]}\nA: {examples[0][a]}\n\nQ: {examples[1][q]}\nA: {examples[1][a]}\n\n"
    "Q: {question}\nA:",
    '{"examples": [{"q": "2+2?", "a": "4"}, {"q": "首都？", "a": "北京"}], "question": "3*3?"}',
)
case(
    "prompt-missing-variable",
    "System: {system}\nUser: {user_input}\nHistory: {history}\n",
    '{"system": "be brief", "user_input": "hello"}',
)
case(
    "prompt-stray-brace",
    "Return a JSON object like {\"a\": 1} for {name}.",
    '{"name": "x"}',
)
case(
    "prompt-scores",
    "Scores for {name!r}: precision={p:.3f} recall={r:.3f} f1={f1:.2%} n={n:,}",
    '{"name": "模型-A", "p": 0.91234, "r": 0.8, "f1": 0.85555, "n": 1234567}',
)
