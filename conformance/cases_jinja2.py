"""Conformance cases for the `jinja2` engine: Jinja2 3.1's default
`Environment().from_string(template).render(**json.loads(vars))`.

Each case is `(id, template, vars_json)`; `vars_json` is JSON text. Ids are stable: never renumber,
only add. Keep cases deterministic: no `random`, `lipsum`, dates, memory addresses (method or
function reprs), sets, or huge ranges. Regenerate with `python3 conformance/generate.py`.
"""

CASES = []


def case(case_id, template, vars_json="{}"):
    CASES.append((case_id, template, vars_json))


# ---------------------------------------------------------------------------------------------
# Printing every JSON type
# ---------------------------------------------------------------------------------------------
PRINT_VALUES = [
    ("none", "null"),
    ("true", "true"),
    ("false", "false"),
    ("int", "42"),
    ("int-negative", "-7"),
    ("int-big", "123456789012345678901234567890"),
    ("int-big-negative", "-98765432109876543210987654321"),
    ("float-1", "1.0"),
    ("float-2.5", "2.5"),
    ("float-1e16", "1e16"),
    ("float-1e15", "1e15"),
    ("float-1e-05", "1e-05"),
    ("float-neg-zero", "-0.0"),
    ("float-0.1", "0.1"),
    ("float-inf", "1e400"),
    ("str", '"hello"'),
    ("str-empty", '""'),
    ("str-html", '"<b>&\\"\'</b>"'),
    ("str-chinese-emoji", '"你好 😀"'),
    ("str-newlines", '"a\\nb\\r\\nc"'),
    ("list", '[1, "a", null, true, 2.5]'),
    ("list-empty", "[]"),
    ("list-quotes", '["it\'s", "say \\"x\\"", "中"]'),
    ("dict", '{"b": 1, "a": [true, null]}'),
    ("dict-empty", "{}"),
    ("dict-nested", '{"k": {"inner": ["v", 1.0, {"x": null}]}}'),
    ("mixed-container", '[{"role": "user", "content": "it\'s \\"quoted\\""}, [false, -0.0]]'),
]
for slug, value in PRINT_VALUES:
    case(f"print-{slug}", "{{ x }}", '{"x": ' + value + "}")
case("print-literal-text-only", "Hello, world!")
case("print-empty-template", "")
case("print-chinese-text", "你好，{{ name }}！", '{"name": "世界"}')
case("print-string-literal", "{{ 'single' }} {{ \"double\" }}")
case("print-string-literal-escapes", "{{ 'a\\tb\\n' }}|{{ '\\u4e2d' }}")
case("print-int-literal", "{{ 1_000 }} {{ 0x1F }} {{ 0o17 }} {{ 0b101 }}")
case("print-float-literal", "{{ 1.5e3 }} {{ 2.0 }} {{ 1e3 }} {{ 0.1 }} {{ 1_0.5 }}")
case("syntax-float-literal-leading-dot", "{{ .5 }}")
case("print-list-literal", "{{ [1, 'two', none, true, 3.0] }}")
case("print-tuple-literal", "{{ (1, 'a') }} {{ (1,) }}")
case("print-dict-literal", "{{ {'a': 1, 'b': [2]} }}")
case("print-none-aliases", "{{ none }} {{ None }} {{ true }} {{ True }} {{ false }} {{ False }}")
case("print-subscript", "{{ l[0] }} {{ l[-1] }} {{ d['k'] }} {{ d.k }}", '{"l": [1, 2, 3], "d": {"k": "v"}}')
case("print-slice", "{{ l[1:] }} {{ l[::-1] }} {{ s[:2] }}", '{"l": [1, 2, 3], "s": "hello"}')
case("print-attr-of-dict-nested", "{{ a.b.c }}", '{"a": {"b": {"c": "deep"}}}')
case("print-string-index", "{{ s[1] }}", '{"s": "héllo"}')

# ---------------------------------------------------------------------------------------------
# Arithmetic, concatenation, comparisons, logic
# ---------------------------------------------------------------------------------------------
case("math-add-int", "{{ a + b }}", '{"a": 2, "b": 3}')
case("math-add-int-float", "{{ a + b }}", '{"a": 2, "b": 0.5}')
case("math-add-float-repr", "{{ 0.1 + 0.2 }}")
case("math-sub-negative", "{{ a - b }}", '{"a": 2, "b": 5}')
case("math-mul", "{{ a * b }} {{ 'ab' * 3 }}", '{"a": 6, "b": 7}')
case("math-truediv-int", "{{ 7 / 2 }} {{ 6 / 3 }}")
case("math-floordiv", "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7.5 // 2 }}")
case("math-mod", "{{ 7 % 3 }} {{ -7 % 3 }} {{ 7.5 % 2 }}")
case("math-pow", "{{ 2 ** 10 }} {{ 2 ** -1 }} {{ 2.0 ** 3 }}")
case("math-pow-big", "{{ 2 ** 100 }}")
case("math-big-int-add", "{{ a + 1 }}", '{"a": 123456789012345678901234567890}')
case("math-big-int-mul", "{{ a * a }}", '{"a": 99999999999999999999}')
case("math-i64-overflow", "{{ a + 1 }}", '{"a": 9223372036854775807}')
case("math-unary-minus", "{{ -a }} {{ -(-a) }} {{ +a }}", '{"a": 5}')
case("math-precedence", "{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}")
case("math-div-by-zero", "{{ a / b }}", '{"a": 1, "b": 0}')
case("math-div-by-zero-literal", "{{ 1 / 0 }}")
case("math-floordiv-by-zero", "{{ 1 // b }}", '{"b": 0}')
case("math-mod-by-zero", "{{ 1 % b }}", '{"b": 0}')
case("math-float-div-by-zero", "{{ 1.5 / b }}", '{"b": 0.0}')
case("math-str-plus-int-error", "{{ s + 1 }}", '{"s": "a"}')
case("math-str-plus-str", "{{ a + b }}", '{"a": "foo", "b": "bar"}')
case("math-list-plus-list", "{{ a + b }}", '{"a": [1], "b": [2, 3]}')
case("math-bool-arith", "{{ true + 1 }} {{ false * 3 }}")
case("math-none-plus-int-error", "{{ n + 1 }}", '{"n": null}')
case("math-undefined-plus-int-error", "{{ missing + 1 }}")
case("concat-tilde", "{{ a ~ b ~ c }}", '{"a": "x", "b": 1, "c": 2.5}')
case("concat-none-bool", "{{ 'v=' ~ n ~ '/' ~ t ~ '/' ~ f }}", '{"n": null, "t": true, "f": false}')
case("concat-undefined", "[{{ 'a' ~ missing ~ 'b' }}]")
case("concat-list", "{{ 'l=' ~ l }}", '{"l": [1, "a"]}')
case("concat-float", "{{ 'x' ~ 1e16 ~ '|' ~ f }}", '{"f": -0.0}')
case("compare-basic", "{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' == 'a' }} {{ 1 != 1.0 }} {{ 1 == 1.0 }}")
case("compare-chained", "{{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}")
case("compare-strings", "{{ 'abc' < 'abd' }} {{ 'B' < 'a' }}")
case("compare-lists", "{{ [1, 2] < [1, 3] }} {{ [1] == [1] }}")
case("compare-mixed-types-error", "{{ 1 < 'a' }}")
case("compare-none-eq", "{{ n == none }} {{ n is none }}", '{"n": null}')
case("logic-and-or-not", "{{ true and false }} {{ true or false }} {{ not true }}")
case("logic-short-circuit-values", "{{ 0 or 'x' }} {{ 'a' and 'b' }} {{ '' or [] }}|")
case("logic-in", "{{ 2 in [1, 2] }} {{ 'b' in 'abc' }} {{ 'k' in d }} {{ 3 not in [1] }}", '{"d": {"k": 1}}')
case("logic-conditional-expr", "{{ 'yes' if x else 'no' }} {{ 'only' if false }}|", '{"x": 0}')
case("logic-truthiness", "{% for v in vals %}{{ 'T' if v else 'F' }}{% endfor %}",
     '{"vals": [0, 1, "", "a", [], [0], {}, {"a": 1}, null, 0.0, -0.0, false]}')

# ---------------------------------------------------------------------------------------------
# Filters
# ---------------------------------------------------------------------------------------------
case("filter-length", "{{ s|length }} {{ l|length }} {{ d|length }} {{ l|count }}",
     '{"s": "你好😀", "l": [1, 2, 3], "d": {"a": 1}}')
case("filter-upper-lower", "{{ s|upper }} {{ s|lower }}", '{"s": "Hello Ärger ß"}')
case("filter-title", "{{ s|title }}", '{"s": "hello wORLD it\'s a-b c_d"}')
case("filter-capitalize", "{{ s|capitalize }}", '{"s": "hELLO World"}')
case("filter-trim", "[{{ s|trim }}] [{{ s|trim('x') }}]", '{"s": "  \\t hi \\n "}')
case("filter-trim-chars", "[{{ s|trim('x') }}]", '{"s": "xxhixx"}')
case("filter-default-undefined", "{{ missing|default('fallback') }}")
case("filter-default-defined", "{{ x|default('fallback') }}", '{"x": "value"}')
case("filter-default-empty-no-bool", "[{{ x|default('fallback') }}]", '{"x": ""}')
case("filter-default-empty-bool", "[{{ x|default('fallback', true) }}]", '{"x": ""}')
case("filter-default-none", "[{{ x|default('fallback') }}] [{{ x|d('f', boolean=true) }}]", '{"x": null}')
case("filter-default-no-arg", "[{{ missing|default }}]")
case("filter-join", "{{ l|join(', ') }} {{ l|join }}", '{"l": ["a", "b", 1, null]}')
case("filter-join-attribute", "{{ users|join(' / ', attribute='name') }}",
     '{"users": [{"name": "ann"}, {"name": "bob"}]}')
case("filter-first-last", "{{ l|first }} {{ l|last }} {{ s|first }} {{ s|last }}", '{"l": [3, 1, 2], "s": "xyz"}')
case("filter-first-empty", "[{{ l|first }}]", '{"l": []}')
case("filter-list", "{{ s|list }} {{ d|list }}", '{"s": "ab", "d": {"k1": 1, "k2": 2}}')
case("filter-sort", "{{ l|sort }} {{ l|sort(reverse=true) }}", '{"l": [3, 1, 2]}')
case("filter-sort-strings-case", "{{ l|sort }} {{ l|sort(case_sensitive=true) }}", '{"l": ["b", "A", "a", "C"]}')
case("filter-sort-attribute", "{{ users|sort(attribute='age')|map(attribute='name')|join(',') }}",
     '{"users": [{"name": "c", "age": 30}, {"name": "a", "age": 20}, {"name": "b", "age": 25}]}')
case("filter-sort-mixed-error", "{{ l|sort }}", '{"l": [1, "a"]}')
case("filter-dictsort", "{{ d|dictsort }} {{ d|dictsort(reverse=true) }}", '{"d": {"b": 1, "a": 2, "C": 0}}')
case("filter-dictsort-by-value", "{% for k, v in d|dictsort(by='value') %}{{ k }}={{ v }};{% endfor %}",
     '{"d": {"b": 1, "a": 2, "c": 0}}')
case("filter-reverse", "{{ l|reverse|list }} {{ s|reverse }}", '{"l": [1, 2, 3], "s": "abc"}')
case("filter-unique", "{{ l|unique|list }} {{ s|unique|list }}", '{"l": [1, 2, 1, 3, 2], "s": ["a", "A", "b"]}')
case("filter-map-attribute", "{{ users|map(attribute='name')|list }}",
     '{"users": [{"name": "ann"}, {"name": "bob"}, {"x": 1}]}')
case("filter-map-attribute-default", "{{ users|map(attribute='name', default='?')|join(',') }}",
     '{"users": [{"name": "ann"}, {"x": 1}]}')
case("filter-map-filter", "{{ l|map('upper')|join(' ') }} {{ n|map('string')|join('+') }}",
     '{"l": ["a", "b"], "n": [1, 2]}')
case("filter-map-filter-args", "{{ l|map('replace', 'a', 'o')|list }}", '{"l": ["banana", "cat"]}')
case("filter-select", "{{ l|select('odd')|list }} {{ l|select|list }}", '{"l": [0, 1, 2, 3, 4, 5]}')
case("filter-reject", "{{ l|reject('even')|list }} {{ l|reject('divisibleby', 3)|list }}", '{"l": [1, 2, 3, 4, 5, 6]}')
case("filter-selectattr", "{{ users|selectattr('active')|map(attribute='name')|join(',') }}",
     '{"users": [{"name": "a", "active": true}, {"name": "b", "active": false}, {"name": "c", "active": true}]}')
case("filter-selectattr-test", "{{ users|selectattr('age', 'gt', 21)|map(attribute='name')|join(',') }}",
     '{"users": [{"name": "a", "age": 30}, {"name": "b", "age": 18}]}')
case("filter-selectattr-equalto", "{{ users|selectattr('role', 'equalto', 'user')|list|length }}",
     '{"users": [{"role": "user"}, {"role": "system"}, {"role": "user"}]}')
case("filter-rejectattr", "{{ users|rejectattr('active')|map(attribute='name')|join(',') }}",
     '{"users": [{"name": "a", "active": true}, {"name": "b", "active": false}]}')
case("filter-sum", "{{ l|sum }} {{ l|sum(start=10) }} {{ f|sum }}", '{"l": [1, 2, 3], "f": [0.1, 0.2]}')
case("filter-sum-attribute", "{{ items|sum(attribute='price') }}", '{"items": [{"price": 3}, {"price": 4.5}]}')
case("filter-min-max", "{{ l|min }} {{ l|max }} {{ s|min }} {{ s|max(case_sensitive=true) }}",
     '{"l": [3, -1, 2.5], "s": ["b", "A", "c"]}')
case("filter-min-empty", "[{{ l|min }}]", '{"l": []}')
case("filter-round-default", "{{ 2.5|round }} {{ 3.5|round }} {{ 2.675|round(2) }} {{ x|round }}", '{"x": 42}')
case("filter-round-methods", "{{ 2.1|round(method='ceil') }} {{ 2.9|round(method='floor') }} {{ -2.5|round }}")
case("filter-round-precision", "{{ 3.14159|round(3) }} {{ 1234.5|round(-2) }} {{ 0.125|round(2) }}")
case("filter-round-int", "{{ 2.7|round|int }}")
case("filter-round-bad-method", "{{ 2.5|round(method='up') }}")
case("filter-int", "{{ '42'|int }} {{ 3.9|int }} {{ 'x'|int }} {{ 'x'|int(7) }} {{ '0x1A'|int(0, 16) }}")
case("filter-int-big", "{{ s|int }}", '{"s": "123456789012345678901234567890"}')
case("filter-float", "{{ '1.5'|float }} {{ 3|float }} {{ 'x'|float }} {{ '1e3'|float }}")
case("filter-abs", "{{ -3|abs }} {{ (-2.5)|abs }} {{ x|abs }}", '{"x": -123456789012345678901234567890}')
case("filter-replace", "{{ s|replace('a', 'o') }} {{ s|replace('a', 'o', 1) }}", '{"s": "banana"}')
case("filter-truncate", "{{ s|truncate(20) }}|{{ s|truncate(9) }}|{{ s|truncate(9, true) }}|{{ s|truncate(9, true, '~', 0) }}",
     '{"s": "The quick brown fox jumps over the lazy dog"}')
case("filter-truncate-short", "{{ s|truncate(255) }}", '{"s": "short"}')
case("filter-wordcount", "{{ s|wordcount }}", '{"s": "Hello, big  wide world! it\'s"}')
case("filter-wordwrap", "{{ s|wordwrap(12) }}", '{"s": "The quick brown fox jumps over the lazy dog"}')
case("filter-wordwrap-break-long", "{{ s|wordwrap(5, break_long_words=false) }}", '{"s": "abcdefghij kl"}')
# textwrap's word splitting (wordsep_re: hyphenated words, em-dashes, Unicode whitespace that
# str.strip() drops): inputs on which an earlier approximation differed from CPython.
case('filter-wordwrap-textwrap-01', "{{ s|wordwrap(5, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "--a\u3000-x\\t?--ab\xa01 "}')
case('filter-wordwrap-textwrap-02', "{{ s|wordwrap(3, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "\xa0x!1!x\\n a-bx你\\t_\\t   a-b.  x--y\\n1_"}')
case('filter-wordwrap-textwrap-03', "{{ s|wordwrap(3, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "x--y?-٣!x!ba1ab-cd?-你ba"}')
case('filter-wordwrap-textwrap-04', "{{ s|wordwrap(2, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "你--x--\xa0.ab-cdb?-x--ab-cd-x--y1-\u3000a1!a_x--y\\n\\n!"}')
case('filter-wordwrap-textwrap-05', "{{ s|wordwrap(2, break_long_words=true, break_on_hyphens=false, wrapstring='|') }}", '{"s": " -\xa01é  \u3000\\na-b٣1x--y--?-_\xa0---bé_bx--y?-é!ab-cd你a-b!"}')
case('filter-wordwrap-textwrap-06', "{{ s|wordwrap(9, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "aab-cd٣-b\xa0--.\u3000é1a  -\u3000b .--x--yx1x٣٣x--y"}')
case('filter-wordwrap-textwrap-07', "{{ s|wordwrap(2, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "\\t\xa0٣.你.a-b ٣٣.é你x--y\\n_  你x.٣é!1  \u3000.-"}')
case('filter-wordwrap-textwrap-08', "{{ s|wordwrap(4, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "\xa0----\\n\xa0\u3000٣ab-cd\u3000  _ab-cdaa-b?-b   \u3000\xa0ab-cdab-cd\\n  "}')
case('filter-wordwrap-textwrap-09', "{{ s|wordwrap(7, break_long_words=true, break_on_hyphens=false, wrapstring='|') }}", '{"s": "?-ab-cd\u3000 \\n   ---你1-aab-cda-b_b\\téx--y你"}')
case('filter-wordwrap-textwrap-10', "{{ s|wordwrap(6, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "!x--y\u3000ab-cd٣x你x\\t1-٣你٣_ab-cdéé_x--y!?-!  "}')
case('filter-wordwrap-textwrap-11', "{{ s|wordwrap(2, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "٣a-b  x--yba-bbaéé\u3000"}')
case('filter-wordwrap-textwrap-12', "{{ s|wordwrap(2, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "٣--\xa0\\nab-cd----x--yx11.-?-_b\u3000x--yab-cd"}')
case('filter-wordwrap-textwrap-13', "{{ s|wordwrap(5, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "?-1_٣\\t\xa0 é\\n 你a-b..1é1\\n--x--y.-1"}')
case('filter-wordwrap-textwrap-14', "{{ s|wordwrap(7, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "x\\n٣٣ébx--y\\ta1"}')
case('filter-wordwrap-textwrap-15', "{{ s|wordwrap(3, break_long_words=false, break_on_hyphens=false, wrapstring='|') }}", '{"s": "\u3000_ \u3000 --xé٣xa-b_é٣.bx! a  xx-ab-cdé"}')
case('filter-wordwrap-textwrap-16', "{{ s|wordwrap(3, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "1a-b--\xa0\\n--x_-xx--ya-b?-    \\nb\xa0!?-"}')
case('filter-wordwrap-textwrap-17', "{{ s|wordwrap(5, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "٣--你-_?- é.你"}')
case('filter-wordwrap-textwrap-18', "{{ s|wordwrap(6, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "?-  ٣?-?-  !aa-bx--y  -x\\t1!\u3000?------ab-cd"}')
case('filter-wordwrap-textwrap-19', "{{ s|wordwrap(5, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "x\\t!...-.é --_x-a你x--yab-cd"}')
case('filter-wordwrap-textwrap-20', "{{ s|wordwrap(8, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "-\\t-\xa0\\t٣\\nb1?--٣\\t.你x--y\\n\\t-x--yab-cd."}')
case('filter-wordwrap-textwrap-21', "{{ s|wordwrap(7, break_long_words=true, break_on_hyphens=true, wrapstring='|') }}", '{"s": "\u3000!---٣x-.!\xa0a你\\t你a-- -\xa0\xa0٣\\nx"}')
case('filter-wordwrap-textwrap-22', "{{ s|wordwrap(9, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "a-bab-cd--x--y1b٣你٣a-bx--y٣. _ -_\u3000\\tx--y"}')
case('filter-wordwrap-textwrap-23', "{{ s|wordwrap(9, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "-\\tab-cd你--_  b \\n!a-bb--!?-! "}')
case('filter-wordwrap-textwrap-24', "{{ s|wordwrap(9, break_long_words=false, break_on_hyphens=true, wrapstring='|') }}", '{"s": "\u30001.?-x٣?-.é--\xa0x--y\\nx  é."}')
case("filter-center", "[{{ s|center(9) }}] [{{ s|center(2) }}]", '{"s": "abc"}')
case("filter-indent", "{{ s|indent }}\n--\n{{ s|indent(2, true) }}\n--\n{{ s|indent('> ', blank=true) }}",
     '{"s": "line1\\n\\nline3"}')
case("filter-batch", "{{ l|batch(3)|list }} {{ l|batch(3, 'x')|list }}", '{"l": [1, 2, 3, 4, 5]}')
case("filter-slice", "{{ l|slice(3)|list }} {{ l|slice(3, 0)|list }}", '{"l": [1, 2, 3, 4, 5, 6, 7]}')
case("filter-groupby", "{% for g in users|groupby('city') %}{{ g.grouper }}: {{ g.list|map(attribute='name')|join(',') }}; {% endfor %}",
     '{"users": [{"name": "a", "city": "NY"}, {"name": "b", "city": "LA"}, {"name": "c", "city": "NY"}]}')
case("filter-groupby-tuple", "{% for city, items in users|groupby('city') %}{{ city }}={{ items|length }} {% endfor %}",
     '{"users": [{"name": "a", "city": "NY"}, {"name": "b", "city": "LA"}, {"name": "c", "city": "NY"}]}')
case("filter-items", "{% for k, v in d|items %}{{ k }}={{ v }},{% endfor %}", '{"d": {"z": 1, "a": 2}}')
case("filter-tojson", "{{ d|tojson }}", '{"d": {"b": [1, 2.5, null, true], "a": "<tag>&\'\\"", "c": "中"}}')
case("filter-tojson-indent", "{{ d|tojson(2) }}", '{"d": {"b": [1], "a": "x"}}')
case("filter-tojson-scalars", "{{ n|tojson }} {{ f|tojson }} {{ s|tojson }} {{ big|tojson }}",
     '{"n": null, "f": 1.0, "s": "\\u00e9\\n", "big": 123456789012345678901234567890}')
case("filter-escape", "{{ s|escape }} {{ s|e }}", '{"s": "<a href=\\"x\\">it\'s & co</a>"}')
case("filter-escape-non-string", "{{ n|e }} {{ l|e }}", '{"n": 5, "l": ["<"]}')
case("filter-striptags", "{{ s|striptags }}", '{"s": "<p>Hello  <b>world</b>\\n &amp; you</p><!-- c -->"}')
case("filter-format", "{{ '%s-%05.1f'|format('a', 3.14159) }}")
case("filter-format-dict-style", "{{ '%(a)s=%(b)d'|format(a='x', b=3) }}")
case("filter-format-percent-r", "{{ '%r %d %x %e'|format('q', 42, 255, 12345.678) }}")
case("filter-format-error", "{{ '%d'|format('x') }}")
case("filter-string", "{{ (1|string) ~ (none|string) ~ ([1]|string) }}")
case("filter-pprint", "{{ d|pprint }}", '{"d": {"b": [1, 2], "a": "x"}}')
case("filter-pprint-long", "{{ l|pprint }}", '{"l": ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccc", "dddd", {"k": "v"}]}')
case("filter-filesizeformat", "{{ 0|filesizeformat }} {{ 1|filesizeformat }} {{ 1000|filesizeformat }} {{ 1536|filesizeformat(true) }} {{ 123456789|filesizeformat }} {{ (10**15)|filesizeformat }} {{ (2**70)|filesizeformat(true) }}")
case("filter-binds-tighter-than-pow", "{{ 10**15|filesizeformat }}")
case("filter-urlencode", "{{ s|urlencode }} {{ d|urlencode }}", '{"s": "a b&c/中", "d": {"q": "x y", "n": 1}}')
case("filter-attr", "{{ d|attr('k') }}|{{ x|attr('real') }}", '{"d": {"k": "v"}, "x": 5}')
case("filter-chain", "{{ s|trim|upper|replace('O', '0')|truncate(8, true, '') }}", '{"s": "  foo boo zoo  "}')
case("filter-unknown", "{{ x|nosuchfilter }}", '{"x": 1}')
case("filter-length-of-int-error", "{{ x|length }}", '{"x": 5}')
case("filter-upper-on-int", "{{ x|upper }}", '{"x": 5}')
case("filter-join-nested", "{{ l|join('|') }}", '{"l": [[1, 2], {"a": 1}]}')
case("filter-safe", "{{ s|safe }}", '{"s": "<b>"}')
case("filter-forceescape", "{{ s|forceescape }}", '{"s": "<b>"}')
case("filter-xmlattr", "<a{{ d|xmlattr }}>", '{"d": {"href": "x&y", "title": "\\"t\\"", "skip": null}}')
case("filter-wordwrap-chinese", "{{ s|wordwrap(6) }}", '{"s": "你好 世界 这是 一个 测试"}')

# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------
case("test-defined-undefined", "{{ x is defined }} {{ y is defined }} {{ y is undefined }}", '{"x": null}')
case("test-none", "{{ x is none }} {{ y is none }}", '{"x": null, "y": 0}')
case("test-number", "{{ 1 is number }} {{ 1.5 is number }} {{ '1' is number }} {{ true is number }}")
case("test-integer-float", "{{ 1 is integer }} {{ 1.0 is float }} {{ 1.0 is integer }} {{ true is boolean }}")
case("test-string", "{{ 'a' is string }} {{ 1 is string }} {{ none is string }}")
case("test-mapping-sequence", "{{ d is mapping }} {{ l is mapping }} {{ l is sequence }} {{ s is sequence }} {{ d is sequence }} {{ 1 is sequence }}",
     '{"d": {}, "l": [], "s": "x"}')
case("test-iterable", "{{ l is iterable }} {{ 1 is iterable }} {{ s is iterable }}", '{"l": [], "s": "x"}')
case("test-even-odd", "{{ 4 is even }} {{ 4 is odd }} {{ -3 is odd }} {{ big is even }}", '{"big": 123456789012345678901234567890}')
case("test-divisibleby", "{{ 9 is divisibleby 3 }} {{ 10 is divisibleby(3) }}")
case("test-in", "{{ 2 is in [1, 2] }} {{ 'x' is in 'abc' }}")
case("test-eq-ne-lt", "{{ 1 is eq 1 }} {{ 1 is ne 2 }} {{ 1 is lt 2 }} {{ 2 is ge 3 }} {{ 'a' is equalto 'a' }}")
case("test-lower-upper", "{{ 'abc' is lower }} {{ 'aBc' is lower }} {{ 'ABC' is upper }} {{ '' is upper }}")
case("test-true-false", "{{ true is true }} {{ 1 is true }} {{ false is false }} {{ 0 is false }}")
case("test-sameas", "{{ none is sameas none }} {{ true is sameas true }}")
case("test-not", "{{ x is not defined }} {{ 3 is not even }}")
case("test-callable", "{{ s.upper is callable }} {{ s is callable }}", '{"s": "a"}')
case("test-filter-test-exists", "{{ 'upper' is filter }} {{ 'nope' is filter }} {{ 'odd' is test }}")
case("test-unknown", "{{ x is nosuchtest }}", '{"x": 1}')
case("test-in-if", "{% if role in ['user', 'assistant'] %}ok{% else %}bad{% endif %}", '{"role": "user"}')

# ---------------------------------------------------------------------------------------------
# Python methods on values
# ---------------------------------------------------------------------------------------------
case("method-str-upper-lower", "{{ s.upper() }} {{ s.lower() }} {{ s.title() }} {{ s.capitalize() }}", '{"s": "hello World"}')
case("method-str-split", "{{ s.split(',') }} {{ s.split(',', 1) }} {{ t.split() }}", '{"s": "a,b,c", "t": " x  y "}')
case("method-str-strip", "[{{ s.strip() }}] [{{ s.lstrip() }}] [{{ s.rstrip() }}] [{{ 'xxhix'.strip('x') }}]", '{"s": "  hi  "}')
case("method-str-startswith", "{{ s.startswith('a') }} {{ s.endswith('z') }} {{ s.startswith(('x', 'ab')) }}", '{"s": "abc"}')
case("method-str-replace", "{{ s.replace('a', 'o') }} {{ s.replace('a', '', 1) }}", '{"s": "banana"}')
case("method-str-find-count", "{{ s.find('n') }} {{ s.count('a') }} {{ s.find('z') }}", '{"s": "banana"}')
case("method-str-join", "{{ '-'.join(l) }}", '{"l": ["a", "b", "c"]}')
case("method-str-format", "{{ 'x={} y={:.2f}'.format(1, 2.5) }} {{ '{a}'.format(a='A') }}")
case("method-str-zfill-center", "{{ '42'.zfill(5) }} [{{ 'ab'.center(6, '*') }}] [{{ 'ab'.ljust(4) }}]")
case("method-str-isdigit", "{{ '123'.isdigit() }} {{ 'a1'.isalnum() }} {{ ' '.isspace() }}")
case("method-str-splitlines", "{{ s.splitlines() }}", '{"s": "a\\nb\\r\\nc"}')
case("method-str-unknown", "{{ s.nosuchmethod() }}", '{"s": "a"}')
case("method-dict-items", "{% for k, v in d.items() %}{{ k }}:{{ v }} {% endfor %}", '{"d": {"b": 1, "a": 2}}')
case("method-dict-keys-values", "{{ d.keys()|list }} {{ d.values()|list }}", '{"d": {"b": 1, "a": 2}}')
case("method-dict-get", "{{ d.get('k', 0) }} {{ d.get('missing', 0) }} [{{ d.get('missing') }}]", '{"d": {"k": 5}}')
case("method-dict-items-print", "{{ d.items() }}", '{"d": {"b": 1}}')
case("method-list-index", "{{ l.index(2) }} {{ l.count(1) }}", '{"l": [1, 2, 1]}')
case("method-list-index-missing", "{{ l.index(9) }}", '{"l": [1, 2, 1]}')
case("method-list-append-allowed", "{% set _ = l.append(3) %}{{ l }}", '{"l": [1, 2]}')
case("method-int-bit-length", "{{ x.bit_length() }} {{ x.real }}", '{"x": 255}')
case("method-on-undefined", "{{ missing.upper() }}")
case("method-on-none", "{{ n.upper() }}", '{"n": null}')

# ---------------------------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------------------------
case("loop-basic", "{% for x in l %}{{ x }},{% endfor %}", '{"l": [1, 2, 3]}')
case("loop-index", "{% for x in l %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.revindex0 }}/{{ loop.length }} {% endfor %}",
     '{"l": ["a", "b", "c"]}')
case("loop-first-last", "{% for x in l %}{% if loop.first %}[{% endif %}{{ x }}{% if not loop.last %}, {% else %}]{% endif %}{% endfor %}",
     '{"l": ["a", "b", "c"]}')
case("loop-cycle", "{% for x in l %}{{ loop.cycle('odd', 'even') }} {% endfor %}", '{"l": [1, 2, 3]}')
case("loop-previtem-nextitem", "{% for x in l %}{{ loop.previtem }}<{{ x }}>{{ loop.nextitem }} {% endfor %}", '{"l": [1, 2, 3]}')
case("loop-changed", "{% for x in l %}{% if loop.changed(x) %}{{ x }}{% endif %}{% endfor %}", '{"l": [1, 1, 2, 2, 1]}')
case("loop-depth", "{% for x in l %}{{ loop.depth }}{% endfor %}", '{"l": [1, 2]}')
case("loop-else", "{% for x in l %}{{ x }}{% else %}empty{% endfor %}", '{"l": []}')
case("loop-else-undefined", "{% for x in missing %}{{ x }}{% else %}none{% endfor %}")
case("loop-nested", "{% for row in m %}{% for c in row %}{{ c }}{% endfor %};{% endfor %}", '{"m": [[1, 2], [3], []]}')
case("loop-nested-outer-loop", "{% for a in l %}{% set outer = loop %}{% for b in l %}{{ outer.index }}{{ loop.index }} {% endfor %}{% endfor %}",
     '{"l": [1, 2]}')
case("loop-dict-items", "{% for k, v in d.items() %}{{ k }}={{ v }}\n{% endfor %}", '{"d": {"name": "x", "age": 3}}')
case("loop-dict-keys", "{% for k in d %}{{ k }} {% endfor %}", '{"d": {"z": 1, "a": 2}}')
case("loop-string", "{% for c in s %}[{{ c }}]{% endfor %}", '{"s": "a中😀"}')
case("loop-filter-if", "{% for x in l if x is odd %}{{ x }}{{ loop.index }} {% endfor %}", '{"l": [1, 2, 3, 4, 5]}')
case("loop-unpack", "{% for a, b in pairs %}{{ a }}-{{ b }} {% endfor %}", '{"pairs": [[1, 2], ["x", "y"]]}')
case("loop-unpack-error", "{% for a, b in pairs %}{{ a }}{% endfor %}", '{"pairs": [[1, 2, 3]]}')
case("loop-range", "{% for i in range(3) %}{{ i }}{% endfor %} {% for i in range(1, 10, 3) %}{{ i }}{% endfor %}")
case("loop-recursive", "{% for item in tree recursive %}<{{ item.name }}{% if item.children %}:{{ loop(item.children) }}{% endif %}>{% endfor %}",
     '{"tree": [{"name": "a", "children": [{"name": "b", "children": []}, {"name": "c"}]}, {"name": "d"}]}')
case("loop-scope-set-does-not-leak", "{% set x = 1 %}{% for i in l %}{% set x = i %}{% endfor %}{{ x }}", '{"l": [5, 6]}')
case("loop-namespace", "{% set ns = namespace(total=0) %}{% for i in l %}{% set ns.total = ns.total + i %}{% endfor %}{{ ns.total }}",
     '{"l": [1, 2, 3]}')
case("loop-over-int-error", "{% for x in n %}{{ x }}{% endfor %}", '{"n": 5}')
case("loop-over-none-error", "{% for x in n %}{{ x }}{% endfor %}", '{"n": null}')
case("loop-variable-after-loop", "{% for x in l %}{% endfor %}[{{ x }}]", '{"l": [1]}')
case("loop-break-without-extension", "{% for x in l %}{% break %}{% endfor %}", '{"l": [1]}')

# ---------------------------------------------------------------------------------------------
# Conditionals, set, with
# ---------------------------------------------------------------------------------------------
case("if-basic", "{% if x %}yes{% endif %}", '{"x": true}')
case("if-elif-else", "{% for n in l %}{% if n < 0 %}neg{% elif n == 0 %}zero{% else %}pos{% endif %} {% endfor %}",
     '{"l": [-1, 0, 1]}')
case("if-undefined-falsy", "{% if missing %}yes{% else %}no{% endif %}")
case("if-nested", "{% if a %}{% if b %}ab{% else %}a{% endif %}{% endif %}", '{"a": 1, "b": 0}')
case("set-simple", "{% set x = 5 %}{{ x * 2 }}")
case("set-overrides-var", "{% set name = 'local' %}{{ name }}", '{"name": "global"}')
case("set-tuple-unpack", "{% set a, b = 1, 2 %}{{ a }}{{ b }}")
case("set-block", "{% set body %}Hello {{ name }}!{% endset %}[{{ body }}] {{ body|length }}", '{"name": "you"}')
case("set-block-filter", "{% set body | upper %}abc{% endset %}{{ body }}")
case("with-block", "{% with a = 1, b = x %}{{ a }}{{ b }}{% endwith %}[{{ a }}]", '{"x": 2}')

# ---------------------------------------------------------------------------------------------
# Macros, call, filter blocks
# ---------------------------------------------------------------------------------------------
case("macro-basic", "{% macro hi(name) %}Hi {{ name }}!{% endmacro %}{{ hi('a') }} {{ hi('b') }}")
case("macro-defaults", "{% macro m(a, b=2, c='x') %}{{ a }}-{{ b }}-{{ c }}{% endmacro %}{{ m(1) }} {{ m(1, c='z') }} {{ m(1, 3, 4) }}")
case("macro-missing-arg-undefined", "{% macro m(a, b) %}[{{ a }}][{{ b }}]{% endmacro %}{{ m(1) }}")
case("macro-too-many-args", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}")
case("macro-varargs-kwargs", "{% macro m(a) %}{{ a }} {{ varargs }} {{ kwargs }}{% endmacro %}{{ m(1, 2, 3, k='v') }}")
case("macro-caller", "{% macro box(title) %}<{{ title }}>{{ caller() }}</{{ title }}>{% endmacro %}{% call box('t') %}inner {{ x }}{% endcall %}",
     '{"x": 1}')
case("macro-caller-args", "{% macro each(l) %}{% for i in l %}{{ caller(i) }}{% endfor %}{% endmacro %}{% call(v) each([1, 2]) %}[{{ v }}]{% endcall %}")
case("macro-returns-markup-concat", "{% macro m() %}<b>{% endmacro %}{{ m() ~ '&' }}")
case("macro-recursion", "{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * fact(n - 1)|int }}{% endif %}{% endmacro %}{{ fact(5) }}")
case("filter-block", "{% filter upper %}hello {{ name }}{% endfilter %}", '{"name": "you"}')
case("filter-block-chain", "{% filter trim|replace(' ', '_') %}  a b c  {% endfilter %}")

# ---------------------------------------------------------------------------------------------
# Whitespace control, trailing newline, raw, comments
# ---------------------------------------------------------------------------------------------
case("ws-trailing-newline-stripped", "hello\n")
case("ws-two-trailing-newlines", "hello\n\n")
case("ws-trailing-crlf", "hello\r\n")
case("ws-crlf-normalized", "a\r\nb\r\n{{ x }}\rc", '{"x": 1}')
case("ws-block-newlines-kept", "{% for x in l %}\n{{ x }}\n{% endfor %}\n", '{"l": [1, 2]}')
case("ws-minus-both", "a  {%- if true -%}  b  {%- endif -%}  c")
case("ws-minus-expression", "a  {{- x -}}  b\n  {{- x }}", '{"x": 1}')
case("ws-minus-loop-lines", "<ul>\n{%- for x in l %}\n  <li>{{ x }}</li>\n{%- endfor %}\n</ul>", '{"l": [1, 2]}')
case("ws-plus-modifier", "a\n  {%+ if true %}b{% endif %}")
case("ws-comment-minus", "a  {#- comment -#}  b")
case("ws-tab-and-indent", "\t{% if true %}\n\tx\n\t{% endif %}\n")
case("raw-block", "{% raw %}{{ not rendered }} {% if %}{% endraw %}")
case("raw-block-whitespace", "a {%- raw -%} {{ x }} {%- endraw -%} b")
case("comment-basic", "a{# a comment {{ x }} #}b")
case("comment-multiline", "a{# line1\nline2 #}\nb")
case("literal-braces-in-text", "a { b } c {x} }}")
case("literal-chinese-multiline", "第一行\n第二行：{{ v }}\n", '{"v": "值"}')

# ---------------------------------------------------------------------------------------------
# Undefined
# ---------------------------------------------------------------------------------------------
case("undefined-prints-empty", "[{{ missing }}]")
case("undefined-is-defined", "{{ missing is defined }}")
case("undefined-default", "{{ missing|default('d') }}")
case("undefined-attr-error", "{{ missing.attr }}")
case("undefined-item-error", "{{ missing['k'] }}")
case("undefined-dict-missing-key-prints-empty", "[{{ d.missing }}] [{{ d['missing'] }}]", '{"d": {"k": 1}}')
case("undefined-dict-missing-key-attr-error", "{{ d.missing.x }}", '{"d": {"k": 1}}')
case("undefined-list-index-out-of-range", "[{{ l[5] }}]", '{"l": [1]}')
case("undefined-attr-of-int", "[{{ x.nope }}]", '{"x": 1}')
case("undefined-attr-of-none", "[{{ n.nope }}]", '{"n": null}')
case("undefined-call-error", "{{ missing() }}")
case("undefined-iterate-empty", "[{% for x in missing %}{{ x }}{% endfor %}]")
case("undefined-length", "{{ missing|length }}")
case("undefined-upper", "[{{ missing|upper }}]")
case("undefined-compare-error", "{{ missing < 1 }}")
case("undefined-eq", "{{ missing == none }} {{ missing == missing2 }}")
case("undefined-in-string-concat-plus", "{{ 'a' + missing }}")
case("undefined-attr-of-undefined-is-defined", "{{ missing.attr is defined }}")
case("undefined-dict-attr-is-defined", "{{ d.k is defined }} {{ d.x is defined }}", '{"d": {"k": null}}')

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
case("syntax-unclosed-expression", "Hello {{ name")
case("syntax-unclosed-block", "{% if x %}yes")
case("syntax-unclosed-for", "line1\n{% for x in l %}\n{{ x }}\n")
case("syntax-unknown-tag", "{% foo %}")
case("syntax-unknown-tag-line3", "a\nb\n{% frobnicate x %}")
case("syntax-break-without-extension", "{% for x in l %}\n{% break %}\n{% endfor %}", '{"l": [1]}')
case("syntax-continue-without-extension", "{% for x in l %}{% continue %}{% endfor %}", '{"l": [1]}')
case("syntax-bad-expression", "{{ 1 + }}")
case("syntax-bad-expression-line2", "ok\n{{ a b }}")
case("syntax-empty-expression", "{{ }}")
case("syntax-unexpected-end-tag", "{% endif %}")
case("syntax-mismatched-end-tag", "{% if x %}\n{% endfor %}")
case("syntax-unclosed-comment", "a {# b")
case("syntax-unclosed-string", "{{ 'abc }}")
case("syntax-unclosed-paren", "{{ (1 + 2 }}")
case("syntax-else-twice", "{% if x %}a{% else %}b{% else %}c{% endif %}")
case("syntax-unclosed-raw", "{% raw %}abc")
case("syntax-bad-filter-name", "{{ x|1 }}")
case("syntax-unknown-filter-line", "a\n\n{{ x|nosuchfilter }}")
case("syntax-macro-bad-default-order", "{% macro m(a=1, b) %}{% endmacro %}")
case("syntax-set-no-value", "{% set x %}")
case("syntax-double-dot", "{{ a..b }}")
case("syntax-assign-to-literal", "{% set 1 = 2 %}")
case("syntax-multiline-error-line", "line1\nline2\nline3 {{ x |\n}}")
case("syntax-chinese-before-error", "第一行\n第二行 {% if %}")
case("runtime-include-no-loader", "{% include 'other.html' %}")
case("runtime-extends-no-loader", "{% extends 'base.html' %}")
case("runtime-import-no-loader", "{% import 'macros.html' as m %}{{ m.x() }}")
case("runtime-call-non-callable", "{{ x() }}", '{"x": 1}')
case("runtime-subscript-int", "{{ x[0] }}", '{"x": 1}')
case("runtime-str-mul-str", "{{ 'a' * 'b' }}")
case("runtime-neg-str", "{{ -s }}", '{"s": "a"}')
case("runtime-int-overflow-format", "{{ '%f'|format(x) }}", '{"x": ' + "1" + "0" * 400 + "}")
case("runtime-float-of-huge-int-math", "{{ x / 3 }}", '{"x": ' + "1" + "0" * 400 + "}")
case("runtime-dict-keys-unhashable", "{{ {[1]: 2} }}")

# ---------------------------------------------------------------------------------------------
# Realistic prompt templates
# ---------------------------------------------------------------------------------------------
CONVERSATION = (
    '{"conversation": [{"role": "system", "content": "You are helpful."}, '
    '{"role": "user", "content": "你好！What\'s the weather?"}, '
    '{"role": "assistant", "content": "It is sunny ☀️ in \\"Beijing\\"."}]}'
)
case("prompt-conversation-simple", "{% for m in conversation %}{{ m.role }}: {{ m.content }}\n{% endfor %}", CONVERSATION)
case(
    "prompt-chat-template",
    "{%- for m in conversation %}\n"
    "<|{{ m.role }}|>\n{{ m.content | trim }}<|end|>\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n<|assistant|>\n{%- endif %}\n",
    CONVERSATION[:-1] + ', "add_generation_prompt": true}',
)
case(
    "prompt-chat-template-system-first",
    "{% if conversation[0].role == 'system' %}SYSTEM: {{ conversation[0].content }}\n"
    "{% set msgs = conversation[1:] %}{% else %}{% set msgs = conversation %}{% endif %}"
    "{% for m in msgs %}{{ m.role|upper }} ({{ loop.index }}/{{ loop.length }}): {{ m.content }}\n{% endfor %}",
    CONVERSATION,
)
case(
    "prompt-rag-chinese",
    "你是一个知识库问答助手。请根据以下资料回答问题。\n\n"
    "{% for doc in docs %}[{{ loop.index }}] {{ doc.title }}（相关度 {{ '%.2f'|format(doc.score) }}）\n{{ doc.text|truncate(30, true) }}\n\n{% endfor %}"
    "问题：{{ question }}\n"
    "{% if docs|length == 0 %}没有找到资料，请如实说明。{% endif %}",
    '{"docs": [{"title": "退货政策", "score": 0.9321, "text": "商品签收后七天内可无理由退货，需保持商品完好，包装齐全。"}, '
    '{"title": "Shipping", "score": 0.5, "text": "Orders ship within 2 business days."}], "question": "我可以退货吗？"}',
)
case(
    "prompt-tools-json",
    "You can call these tools:\n"
    "{% for t in tools %}- {{ t.name }}: {{ t.description }}\n  parameters: {{ t.parameters|tojson }}\n{% endfor %}"
    "Respond with JSON {\"tool\": ..., \"args\": ...}.",
    '{"tools": [{"name": "search", "description": "Web search", "parameters": {"q": "string", "k": 5}}, '
    '{"name": "calc", "description": "计算器", "parameters": {}}]}',
)
case(
    "prompt-user-profile-defaults",
    "User: {{ user.name|default('anonymous') }}\n"
    "Language: {{ user.lang|default('en')|upper }}\n"
    "{% if user.vip %}VIP customer — be extra polite.\n{% endif %}"
    "Interests: {{ user.interests|join(', ') if user.interests else 'none' }}\n",
    '{"user": {"name": "李雷", "interests": ["AI", "围棋"]}}',
)
case(
    "prompt-few-shot-macro",
    "{% macro example(q, a) -%}\nQ: {{ q }}\nA: {{ a }}\n{%- endmacro %}"
    "{% for e in examples %}{{ example(e.q, e.a) }}\n\n{% endfor %}Q: {{ question }}\nA:",
    '{"examples": [{"q": "2+2?", "a": "4"}, {"q": "首都？", "a": "北京"}], "question": "3*3?"}',
)
case(
    "prompt-missing-attribute-chain",
    "{% for m in conversation %}{{ m.role }}: {{ m.meta.source }}\n{% endfor %}",
    CONVERSATION,
)

# ---------------------------------------------------------------------------------------------
# More numbers: float results, inf/nan, big ints
# ---------------------------------------------------------------------------------------------
case("num-float-results", "{{ 1 / 3 }} {{ 2 ** 0.5 }} {{ 10 / 4 }} {{ 0.1 * 3 }} {{ 1e308 * 10 }} {{ -1e308 * 10 }}")
case("num-nan-from-inf", "{{ x - x }} {{ (x - x) == (x - x) }}", '{"x": 1e400}')
case("num-inf-arith", "{{ x + 1 }} {{ -x }} {{ x > 1e308 }} {{ 1 / x }}", '{"x": 1e400}')
case("num-inf-format", "[{{ '%5.1f'|format(x) }}] [{{ '%+e'|format(-x) }}]", '{"x": 1e400}')
case("num-inf-tojson", "{{ x|tojson }} {{ [x, -x]|tojson }}", '{"x": 1e400}')
case("num-inf-round", "{{ x|round }}", '{"x": 1e400}')
case("num-inf-int-error", "{{ x|int }}", '{"x": 1e400}')
case("num-neg-zero-ops", "{{ x|abs }} {{ x + 0 }} {{ x * -1 }} {{ x|string }} {{ x == 0 }}", '{"x": -0.0}')
case("num-big-floordiv-mod", "{{ -a // 7 }} {{ -a % 7 }} {{ a // -7 }}", '{"a": 123456789012345678901234567890}')
case("num-big-times-float", "{{ a * 1.0 }} {{ a / 10 }}", '{"a": 123456789012345678901234567890}')
case("num-big-compare", "{{ a > 1e29 }} {{ a == a + 0 }} {{ a < b }}",
     '{"a": 123456789012345678901234567890, "b": 123456789012345678901234567891}')
case("num-2pow64", "{{ 2 ** 64 }} {{ 2 ** 64 - 1 }} {{ -(2 ** 63) }}")
case("num-int-float-eq-in-list", "{{ 1 in [1.0] }} {{ 1.0 in [1] }} {{ true in [1] }}")
case("num-float-filter-strings", "{{ 'inf'|float }} {{ '-0'|float }} {{ ' 2.5 '|float }} {{ 'nan'|float }}")
case("num-int-filter-strings", "{{ '3.5'|int }} {{ ' 7 '|int }} {{ '1_000'|int }} {{ '0b11'|int(0, 0) }} {{ true|int }}")
case("num-round-int-precision", "{{ 1234|round(-2) }} {{ 5|round(1) }} {{ 1.5|round(0, 'floor') }}")
case("num-divisibleby-zero", "{{ 3 is divisibleby 0 }}")

# ---------------------------------------------------------------------------------------------
# More filters and globals
# ---------------------------------------------------------------------------------------------
case("filter-tojson-floats", "{{ l|tojson }}", '{"l": [1.0, -0.0, 1e16, 1e-05, 0.1, 123456789012345678901234567890]}')
case("filter-tojson-nested-unicode", "{{ d|tojson }}", '{"d": {"msg": "你好 😀", "list": [{"z": 1, "a": 2}]}}')
case("filter-truncate-killwords-end", "{{ s|truncate(10, false, '…', 0) }}", '{"s": "alpha beta gamma delta"}')
case("filter-wordwrap-wrapstring", "{{ s|wordwrap(10, wrapstring='<br>') }}", '{"s": "one two three four five six"}')
case("filter-indent-first", "{{ s|indent(width=3, first=true) }}", '{"s": "a\\nb\\n"}')
case("filter-center-chinese", "[{{ s|center(7) }}]", '{"s": "中文"}')
case("filter-title-chinese-mixed", "{{ s|title }}", '{"s": "hello 世界 foo-bar o\'neil"}')
case("filter-upper-special", "{{ s|upper }} {{ s|length }} {{ (s|upper)|length }}", '{"s": "straße ﬁ"}')
case("filter-escape-twice", "{{ s|e|e }}", '{"s": "<&>"}')
case("filter-format-none-list", "{{ '%s|%s|%r'|format(none, [1, 'a'], {'k': 1}) }}")
case("filter-format-widths", "[{{ '%-6s|%6.2f|%+d|%05d|%x|%o|%e'|format('ab', 3.14159, 5, -42, 255, 8, 0.000123) }}]")
case("filter-max-attribute", "{{ users|max(attribute='age') }}", '{"users": [{"name": "a", "age": 30}, {"name": "b", "age": 40}]}')
case("filter-min-attribute-name", "{{ (users|min(attribute='age')).name }}", '{"users": [{"name": "a", "age": 30}, {"name": "b", "age": 20}]}')
case("filter-dictsort-case-sensitive", "{{ d|dictsort(true) }}", '{"d": {"b": 1, "a": 2, "C": 0}}')
case("filter-selectattr-defined", "{{ l|selectattr('x', 'defined')|list|length }} {{ l|rejectattr('x')|list }}",
     '{"l": [{"x": 1}, {"y": 2}, {"x": 0}]}')
case("filter-select-string-test", "{{ l|select('string')|list }} {{ l|reject('none')|list }}", '{"l": [1, "a", null, "b"]}')
case("filter-map-on-dict-values", "{{ d.values()|map('upper')|join(',') }}", '{"d": {"a": "x", "b": "y"}}')
case("filter-groupby-default-key", "{% for g in l|groupby('k', default='none') %}{{ g.grouper }}:{{ g.list|length }} {% endfor %}",
     '{"l": [{"k": "a"}, {}, {"k": "a"}]}')
case("filter-list-of-dict-items", "{{ d|items|list }}", '{"d": {"a": 1, "b": [2]}}')
case("filter-batch-empty", "{{ []|batch(3)|list }} {{ l|slice(4)|list }}", '{"l": [1, 2]}')
case("filter-reverse-list-is-iterator-printed", "{{ (l|reverse)|list|join }}", '{"l": ["a", "b"]}')
case("filter-length-unicode", "{{ s|length }} {{ s|wordcount }}", '{"s": "👨‍👩‍👧 e\\u0301"}')
case("filter-string-methods-on-markup", "{{ ('<a>'|e).upper() }}")
case("global-range-print", "{{ range(3) }} {{ range(1, 10, 4)|list }} {{ range(0)|list }}")
case("global-dict", "{{ dict(a=1, b='x') }} {{ dict(a=1).a }}")
case("global-joiner", "{% set j = joiner(', ') %}{% for x in l %}{{ j() }}{{ x }}{% endfor %}", '{"l": [1, 2, 3]}')
case("global-namespace-print-attr", "{% set ns = namespace(a=1, b='x') %}{{ ns.a }}{{ ns.b }}")
case("global-cycler", "{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}")

# ---------------------------------------------------------------------------------------------
# More attribute / subscript rules
# ---------------------------------------------------------------------------------------------
case("subscript-dot-integer", "{{ l.0 }} {{ l.1.k }}", '{"l": ["a", {"k": "v"}]}')
case("subscript-string-out-of-range", "[{{ s[5] }}] {{ s[1:10] }} {{ s[::-1] }} {{ s[-2:] }}", '{"s": "abc"}')
case("subscript-dict-int-key", "[{{ d[0] }}] {{ d['0'] }}", '{"d": {"0": "zero"}}')
case("subscript-attr-prefers-attribute", "{{ d.items is defined }} [{{ d['items'] }}]", '{"d": {"items": "own key"}}')
case("subscript-dict-key-named-like-method", "{{ d['keys'] }} {{ d.keys is callable }}", '{"d": {"keys": "own"}}')
case("subscript-nested-missing-is-undefined", "[{{ d.a.b is defined }}]", '{"d": {"a": {}}}')
case("subscript-list-negative-out-of-range", "[{{ l[-5] }}]", '{"l": [1]}')
case("subscript-list-by-string", "[{{ l['x'] }}]", '{"l": [1]}')
case("subscript-slice-with-vars", "{{ l[a:b] }}", '{"l": [0, 1, 2, 3, 4], "a": 1, "b": -1}')

# ---------------------------------------------------------------------------------------------
# More control structures and whitespace
# ---------------------------------------------------------------------------------------------
case("loop-length-filtered", "{% for x in l if x > 1 %}{{ loop.length }}{% endfor %}", '{"l": [1, 2, 3]}')
case("loop-revindex-nested-cycle", "{% for r in m %}{% for c in r %}{{ loop.cycle('[', '(') }}{{ c }}{% endfor %}|{% endfor %}",
     '{"m": [[1, 2, 3], [4]]}')
case("loop-dict-values", "{% for v in d.values() %}{{ v }};{% endfor %}", '{"d": {"a": [1], "b": null}}')
case("loop-recursive-depth", "{% for n in tree recursive %}{{ loop.depth }}{{ n.v }}{% if n.c %}({{ loop(n.c) }}){% endif %}{% endfor %}",
     '{"tree": [{"v": "a", "c": [{"v": "b", "c": [{"v": "c"}]}]}, {"v": "d"}]}')
case("if-inline-in-text", "Dear {{ 'Dr. ' if doctor else '' }}{{ name }},", '{"doctor": true, "name": "Li"}')
case("ws-lstrip-not-default", "  {% if true %}x{% endif %}  \n  y")
case("ws-newline-after-block-kept", "{% if true %}\nA\n{% endif %}\nB")
case("ws-minus-eats-newlines-both-sides", "a\n\n  {{- 'b' -}}  \n\nc")
case("ws-only-one-trailing-newline-stripped-after-tag", "{{ x }}\n", '{"x": "v\\n"}')
case("macro-call-kwargs-missing-undefined", "{% macro m(a, b) %}{{ a }}|{{ b is defined }}{% endmacro %}{{ m(b=2) }}")
case("macro-caller-missing-error", "{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}")
case("macro-unknown-kwarg-error", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, z=2) }}")
case("call-block-with-filter", "{% macro wrap() %}<{{ caller()|trim|upper }}>{% endmacro %}{% call wrap() %}  hi  {% endcall %}")
case("set-list-and-index", "{% set xs = [3, 1, 2] %}{{ xs|sort|first }} {{ xs[1:] }}")
case("set-dict-literal-lookup", "{% set m = {'user': 'U', 'assistant': 'A'} %}{% for r in roles %}{{ m[r] }}{% endfor %}",
     '{"roles": ["user", "assistant", "user"]}')

# ---------------------------------------------------------------------------------------------
# More errors
# ---------------------------------------------------------------------------------------------
case("syntax-unclosed-expression-multiline", "a\nb {{ x\nc\n")
case("syntax-unclosed-if-in-for", "{% for x in l %}\n{% if x %}\n{% endfor %}")
case("syntax-extends-bad-arg", "{% extends %}")
case("syntax-tag-name-missing", "{% %}")
case("syntax-filter-block-no-name", "{% filter %}x{% endfilter %}")
case("syntax-is-without-test", "{{ x is }}")
case("syntax-macro-name-missing", "{% macro %}{% endmacro %}")
case("runtime-unpack-not-iterable", "{% set a, b = 1 %}")
case("runtime-sort-dicts-error", "{{ l|sort }}", '{"l": [{"a": 1}, {"a": 2}]}')
case("filter-join-missing-attribute", "{{ l|join(',', attribute='x') }}", '{"l": [{"y": 1}]}')
case("runtime-sum-strings-error", "{{ l|sum }}", '{"l": ["a", "b"]}')
case("runtime-round-string-error", "{{ 'x'|round }}")
case("filter-batch-zero", "{{ l|batch(0)|list }}", '{"l": [1]}')
case("runtime-undefined-attr-in-loop", "{% for m in msgs %}{{ m.meta.x }}{% endfor %}", '{"msgs": [{"role": "user"}]}')
case("runtime-undefined-iteration-of-attr", "{% for x in d.missing.items() %}{% endfor %}", '{"d": {}}')

# ---------------------------------------------------------------------------------------------
# More realistic prompts
# ---------------------------------------------------------------------------------------------
case(
    "prompt-react-agent",
    "Answer the following questions as best you can. You have access to the following tools:\n\n"
    "{% for tool in tools -%}\n{{ tool.name }}: {{ tool.description }}\n{% endfor %}\n"
    "Use the following format:\n\nQuestion: the input question you must answer\n"
    "Thought: you should always think about what to do\n"
    "Action: the action to take, should be one of [{{ tools|map(attribute='name')|join(', ') }}]\n"
    "Action Input: the input to the action\n\n"
    "Begin!\n\nQuestion: {{ input }}\n"
    "{% for step in steps %}Thought: {{ step.thought }}\nAction: {{ step.action }}\nObservation: {{ step.observation }}\n{% endfor %}"
    "Thought:",
    '{"tools": [{"name": "search", "description": "search the web"}, {"name": "calculator", "description": "do math"}], '
    '"input": "What is 2^10 in 中文?", "steps": [{"thought": "compute", "action": "calculator", "observation": 1024}]}',
)
case(
    "prompt-chatml-tool-calls",
    "{% for m in conversation %}<|im_start|>{{ m.role }}\n"
    "{% if m.tool_calls %}{% for c in m.tool_calls %}<tool_call>{{ {'name': c.name, 'arguments': c.args}|tojson }}</tool_call>\n{% endfor %}"
    "{% else %}{{ m.content }}\n{% endif %}<|im_end|>\n{% endfor %}<|im_start|>assistant\n",
    '{"conversation": [{"role": "user", "content": "北京天气？"}, '
    '{"role": "assistant", "tool_calls": [{"name": "weather", "args": {"city": "北京", "unit": "c"}}]}, '
    '{"role": "tool", "content": "晴 25°C"}]}',
)
case(
    "prompt-summary-with-stats",
    "## 会话摘要 / Session summary\n"
    "- Messages: {{ conversation|length }}\n"
    "- Users: {{ conversation|selectattr('role', 'eq', 'user')|list|length }}\n"
    "- Total chars: {{ conversation|map(attribute='content')|map('length')|sum }}\n"
    "- Last speaker: {{ (conversation|last).role|title }}\n"
    "{%- if conversation|length > 2 %}\n- Long conversation{% endif %}\n",
    CONVERSATION,
)


# --- {% autoescape %} scopes and Markup ------------------------------------------------------
# Jinja2 decides at compile time how `{{ }}` prints inside the tag (a non-constant value defers
# that to run time, except for printed constants); macro results, set blocks, join, replace,
# xmlattr and urlize follow the run-time setting. Markup (`|e`, `|safe`) escapes what is combined
# with it. Expected values are recorded from Jinja2 3.1.6 like every other case.

case('ae-basic', "{% autoescape true %}{{ '<a>' }}{% endautoescape %}{{ '<b>' }}", '{}')
case('ae-all-chars', '{% autoescape true %}{{ s }}{% endautoescape %}', '{"s": "& < > \\" \' /"}')
case('ae-nonstrings', '{% autoescape true %}{{ x }}|{{ n }}|{{ f }}|{{ none }}|{{ undef }}|{{ true }}|{{ d }}{% endautoescape %}', '{"x": ["<a>", "\'"], "n": 1, "f": 1.5, "d": {"k": "&"}}')
case('ae-false', "{% autoescape false %}{{ '<a>' }}{% endautoescape %}", '{}')
case('ae-nested-false', "{% autoescape true %}{% autoescape false %}{{ '<' }}{% endautoescape %}{{ '<' }}{% endautoescape %}", '{}')
case('ae-nested-true-in-false', "{% autoescape false %}{{ '<' }}{% autoescape true %}{{ '<' }}{% endautoescape %}{{ '<' }}{% endautoescape %}", '{}')
case('ae-var-true', '{% autoescape x %}{{ s }}{% endautoescape %}{{ s }}', '{"x": true, "s": "<"}')
case('ae-var-const-printed', "{% autoescape x %}{{ '<' }}|{{ s }}{% endautoescape %}", '{"x": true, "s": "<"}')
case('ae-var-false', '{% autoescape x %}{{ s }}{% endautoescape %}', '{"x": false, "s": "<"}')
case('ae-var-str-none', '{% autoescape x %}{{ s }}{% endautoescape %}', '{"x": "none", "s": "<"}')
case('ae-var-list', '{% autoescape x %}{{ s }}{% endautoescape %}', '{"x": [1], "s": "<"}')
case('ae-var-empty-list', '{% autoescape x %}{{ s }}{% endautoescape %}', '{"x": [], "s": "<"}')
case('ae-var-undefined', '{% autoescape x %}{{ s }}{% endautoescape %}', '{"s": "<"}')
case('ae-var-in-const-true', "{% autoescape true %}{% autoescape x %}{{ '<' }}{{ s }}{% endautoescape %}{% endautoescape %}", '{"x": false, "s": "<"}')
case('ae-const-str', "{% autoescape 'none' %}{{ '<' }}{% endautoescape %}", '{}')
case('ae-const-zero', "{% autoescape 0 %}{{ '<' }}{% endautoescape %}", '{}')
case('ae-literal-text', "{% autoescape true %}<b>{{ '<i>' }}</b>{% endautoescape %}", '{}')
case('ae-loop', '{% autoescape true %}{% for x in xs %}{{ x }}{{ loop.index }}{% endfor %}{% endautoescape %}', '{"xs": ["<", "&"]}')
case('ae-if', '{% autoescape true %}{% if a %}{{ a }}{% else %}{{ b }}{% endif %}{% endautoescape %}', '{"a": "", "b": "<b>"}')
case('ae-ifexpr', '{% autoescape true %}{{ a if a else b }}{% endautoescape %}', '{"a": "", "b": "<b>"}')
case('ae-set-scoped', "{% autoescape true %}{% set a = '<' %}{{ a }}{% endautoescape %}[{{ a }}]", '{}')
case('ae-set-block', "{% autoescape true %}{% set x %}<a>{{ '<' }}{% endset %}{{ x }}{{ x|e }}{% endautoescape %}", '{}')
case('ae-set-block-concat', '{% autoescape true %}{% set x %}<a>{% endset %}{{ x ~ y }}{% endautoescape %}', '{"y": "<"}')
case('ae-macro-out-called-in', "{% macro m(x) %}{{ x }}{% endmacro %}{% autoescape true %}{{ m('<a>') }}{% endautoescape %}", '{}')
case('ae-macro-in-called-in', "{% autoescape true %}{% macro m(x) %}{{ x }}{% endmacro %}{{ m('<a>') }}{% endautoescape %}", '{}')
case('ae-macro-in-undefined-out', "{% autoescape true %}{% macro m(x) %}{{ x }}{% endmacro %}{% endautoescape %}{{ m('<a>') }}", '{}')
case('ae-macro-result-concat', '{% macro m() %}<i>{% endmacro %}{% autoescape true %}{{ m() ~ y }}{% endautoescape %}', '{"y": "<"}')
case('ae-call-block', "{% macro m() %}[{{ caller() }}]{% endmacro %}{% autoescape true %}{% call m() %}<a>{{ '<b>' }}{% endcall %}{% endautoescape %}", '{}')
case('ae-filter-block', "{% autoescape true %}{% filter upper %}<a>{{ '<b>' }}{% endfilter %}{% endautoescape %}", '{}')
case('ae-filter-block-replace', "{% autoescape true %}{% filter replace('a', '<') %}a{% endfilter %}{% endautoescape %}", '{}')
case('ae-block', "{% autoescape true %}{% block b %}{{ '<a>' }}{% endblock %}{% endautoescape %}", '{}')
case('ae-concat-var-markup', "{% autoescape true %}{{ y ~ ('>'|e) }}{% endautoescape %}", '{"y": "<"}')
case('ae-concat-plain', '{% autoescape true %}{{ y ~ z }}{% endautoescape %}', '{"y": "<", "z": "&"}')
case('ae-concat-outside-markup', '{{ (y|e) ~ z }}|{{ ((y|e) ~ z)|e }}', '{"y": "<", "z": "&"}')
case('ae-concat-volatile', '{% autoescape x %}{{ y ~ (z|e) }}{% endautoescape %}', '{"x": true, "y": "<", "z": ">"}')
case('ae-safe', '{% autoescape true %}{{ s|safe }}{{ 1|safe }}{% endautoescape %}', '{"s": "<b>"}')
case('ae-escape-twice', '{% autoescape true %}{{ s|e|e }}{{ s|escape }}{% endautoescape %}', '{"s": "<&>"}')
case('ae-forceescape', '{% autoescape true %}{{ s|safe|forceescape }}{% endautoescape %}', '{"s": "<b>"}')
case('ae-join-plain', "{% autoescape true %}{{ xs|join(', ') }}{% endautoescape %}", '{"xs": ["<a>", "b"]}')
case('ae-join-markup-item', "{% autoescape true %}{{ [s|safe, t]|join('&') }}{% endautoescape %}", '{"s": "<b>", "t": "<i>"}')
case('ae-join-markup-sep', '{% autoescape true %}{{ xs|join(sep|safe) }}{% endautoescape %}', '{"xs": ["<a>", "b"], "sep": "<br>"}')
case('join-markup-outside', "{{ [s|safe, t]|join('&')|e }}", '{"s": "<b>", "t": "<i>"}')
case('ae-replace', "{% autoescape true %}{{ s|replace('a', '<') }}|{{ s|replace('a', n|safe) }}{% endautoescape %}", '{"s": "a&", "n": "<br>"}')
case('replace-markup-outside', "{{ (s|safe)|replace('a', '<')|e }}", '{"s": "a&"}')
case('markup-plus', '{{ ((s|e) + t)|e }}|{{ (t + (s|e))|e }}', '{"s": "<", "t": "&"}')
case('ae-markup-plus', '{% autoescape true %}{{ (s|e) + t }}{% endautoescape %}', '{"s": "<", "t": "&"}')
case('markup-percent', "{{ ('<b>%s</b>'|safe) % s }}|{{ ('%s-%s'|safe) % (s, 1) }}|{{ ('%(a)s'|safe) % {'a': s} }}", '{"s": "<&>"}')
case('ae-markup-percent', "{% autoescape true %}{{ ('<b>%s</b>'|safe) % s }}{{ '<%s>' % s }}{% endautoescape %}", '{"s": "<&>"}')
case('markup-format', "{{ ('<b>{}</b>'|safe).format(s) }}|{{ ('{x}'|safe).format(x=s) }}", '{"s": "<&>"}')
case('markup-mul', '{% autoescape true %}{{ (s|e) * 2 }}{% endautoescape %}', '{"s": "<"}')
case('markup-repr', '{{ [s|e, s|safe] }}|{{ (s|e)|pprint }}', '{"s": "<a>"}')
case('markup-upper', '{{ (s|e)|upper|e }}|{{ (s|safe).upper()|e }}', '{"s": "<a>"}')
case('markup-join-method', '{{ (sep|safe).join(xs) }}', '{"sep": "<br>", "xs": ["<", "&"]}')
case('ae-tojson', '{% autoescape true %}{{ d|tojson }}{% endautoescape %}', '{"d": {"a": "<\\"\'&>"}}')
case('ae-xmlattr', '{% autoescape true %}<p{{ d|xmlattr }}>{% endautoescape %}', '{"d": {"class": "<a>", "id": "x"}}')
case('xmlattr-outside-escaped', '{{ (d|xmlattr)|e }}', '{"d": {"class": "<a>"}}')
case('ae-urlize', '{% autoescape true %}{{ s|urlize }}{% endautoescape %}', '{"s": "see http://x.org/<a> & more"}')
case('urlize-outside-escaped', '{{ (s|urlize)|e }}', '{"s": "http://x.org"}')
case('ae-format-filter', "{% autoescape true %}{{ '%s!'|format(s) }}{{ ('%s!'|safe)|format(s) }}{% endautoescape %}", '{"s": "<"}')
case('ae-center', '{% autoescape true %}[{{ (s|e)|center(7) }}]{% endautoescape %}', '{"s": "<"}')
case('ae-indent', '{% autoescape true %}{{ (s|e)|indent(2, true) }}{% endautoescape %}', '{"s": "<\\n>"}')
case('ae-striptags', '{% autoescape true %}{{ s|striptags }}|{{ (s|safe)|striptags }}{% endautoescape %}', '{"s": "<b>a &amp; b</b>"}')
case('ae-string-filter', '{% autoescape true %}{{ (s|e)|string }}{{ 5|string }}{% endautoescape %}', '{"s": "<"}')
case('ae-trim', '{% autoescape true %}{{ (s|e)|trim|e }}{% endautoescape %}', '{"s": " <a> "}')
case('ae-escaped-test', '{% autoescape true %}{{ (s|e) is escaped }}{{ s is escaped }}{% endautoescape %}', '{"s": "<"}')
case('ae-list-of-markup', '{% autoescape true %}{{ [s|e] }}{% endautoescape %}', '{"s": "<"}')
case('ae-namespace-loop', "{% autoescape true %}{% set ns = namespace(v='') %}{% for x in xs %}{% set ns.v = ns.v ~ x %}{% endfor %}{{ ns.v }}{% endautoescape %}", '{"xs": ["<", ">"]}')
case('ae-wordwrap', '{% autoescape true %}{{ s|wordwrap(5) }}{% endautoescape %}', '{"s": "<aaa> <bbb>"}')
case('ae-truncate', '{% autoescape true %}{{ (s|e)|truncate(9) }}{% endautoescape %}', '{"s": "<aaaaaa> bbbbbbbb"}')
case('ae-macro-volatile', "{% macro m(x) %}{{ x }}{% endmacro %}{% autoescape on %}{{ m('<a>') }}|{{ '<' }}{% endautoescape %}", '{"on": true}')
case('ae-in-macro', "{% macro m(x) %}{% autoescape true %}{{ x }}{% endautoescape %}{% endmacro %}{{ m('<a>') }}{{ m('<a>')|e }}", '{}')
case('ae-syntax-missing-end', '{% autoescape true %}{{ x }}', '{}')
case('ae-loop-in-macro-jumps', "{% macro m(xs) %}{% for x in xs %}{% autoescape x == '<' %}{{ x }}{% endautoescape %}{% endfor %}{% endmacro %}{{ m(['<', '>']) }}", '{}')

# Markup through the string filters and methods: `is escaped` tells Markup from str.
case('markup-filter-upper', '{{ ((s|e)|upper) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-upper', '{% autoescape true %}{{ ((s|e)|upper) is escaped }}|{{ (s|upper) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-lower', '{{ ((s|e)|lower) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-lower', '{% autoescape true %}{{ ((s|e)|lower) is escaped }}|{{ (s|lower) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-title', '{{ ((s|e)|title) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-title', '{% autoescape true %}{{ ((s|e)|title) is escaped }}|{{ (s|title) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-capitalize', '{{ ((s|e)|capitalize) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-capitalize', '{% autoescape true %}{{ ((s|e)|capitalize) is escaped }}|{{ (s|capitalize) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-trim', '{{ ((s|e)|trim) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-trim', '{% autoescape true %}{{ ((s|e)|trim) is escaped }}|{{ (s|trim) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-center(9)', '{{ ((s|e)|center(9)) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-center(9)', '{% autoescape true %}{{ ((s|e)|center(9)) is escaped }}|{{ (s|center(9)) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-indent(2)', '{{ ((s|e)|indent(2)) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-indent(2)', '{% autoescape true %}{{ ((s|e)|indent(2)) is escaped }}|{{ (s|indent(2)) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-truncate(3)', '{{ ((s|e)|truncate(3)) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-truncate(3)', '{% autoescape true %}{{ ((s|e)|truncate(3)) is escaped }}|{{ (s|truncate(3)) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-wordwrap(3)', '{{ ((s|e)|wordwrap(3)) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-wordwrap(3)', '{% autoescape true %}{{ ((s|e)|wordwrap(3)) is escaped }}|{{ (s|wordwrap(3)) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-striptags', '{{ ((s|e)|striptags) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-striptags', '{% autoescape true %}{{ ((s|e)|striptags) is escaped }}|{{ (s|striptags) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-string', '{{ ((s|e)|string) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-string', '{% autoescape true %}{{ ((s|e)|string) is escaped }}|{{ (s|string) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case("markup-filter-replace('a','b')", "{{ ((s|e)|replace('a','b')) is escaped }}", '{"s": "<a> a&b", "d": {"k": "<"}}')
case("ae-markup-filter-replace('a','b')", "{% autoescape true %}{{ ((s|e)|replace('a','b')) is escaped }}|{{ (s|replace('a','b')) is escaped }}{% endautoescape %}", '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-format', '{{ ((s|e)|format) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-format', '{% autoescape true %}{{ ((s|e)|format) is escaped }}|{{ (s|format) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-urlize', '{{ ((s|e)|urlize) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-urlize', '{% autoescape true %}{{ ((s|e)|urlize) is escaped }}|{{ (s|urlize) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-list|first', '{{ ((s|e)|list|first) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-list|first', '{% autoescape true %}{{ ((s|e)|list|first) is escaped }}|{{ (s|list|first) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-first', '{{ ((s|e)|first) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-first', '{% autoescape true %}{{ ((s|e)|first) is escaped }}|{{ (s|first) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-last', '{{ ((s|e)|last) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-last', '{% autoescape true %}{{ ((s|e)|last) is escaped }}|{{ (s|last) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-reverse', '{{ ((s|e)|reverse) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-reverse', '{% autoescape true %}{{ ((s|e)|reverse) is escaped }}|{{ (s|reverse) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-join', '{{ ((s|e)|join) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-join', '{% autoescape true %}{{ ((s|e)|join) is escaped }}|{{ (s|join) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case("markup-filter-default('x')", "{{ ((s|e)|default('x')) is escaped }}", '{"s": "<a> a&b", "d": {"k": "<"}}')
case("ae-markup-filter-default('x')", "{% autoescape true %}{{ ((s|e)|default('x')) is escaped }}|{{ (s|default('x')) is escaped }}{% endautoescape %}", '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-wordcount', '{{ ((s|e)|wordcount) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-wordcount', '{% autoescape true %}{{ ((s|e)|wordcount) is escaped }}|{{ (s|wordcount) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-pprint', '{{ ((s|e)|pprint) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-pprint', '{% autoescape true %}{{ ((s|e)|pprint) is escaped }}|{{ (s|pprint) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-forceescape', '{{ ((s|e)|forceescape) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-forceescape', '{% autoescape true %}{{ ((s|e)|forceescape) is escaped }}|{{ (s|forceescape) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-escape', '{{ ((s|e)|escape) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-escape', '{% autoescape true %}{{ ((s|e)|escape) is escaped }}|{{ (s|escape) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-safe', '{{ ((s|e)|safe) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-safe', '{% autoescape true %}{{ ((s|e)|safe) is escaped }}|{{ (s|safe) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-tojson', '{{ ((s|e)|tojson) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-tojson', '{% autoescape true %}{{ ((s|e)|tojson) is escaped }}|{{ (s|tojson) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-urlencode', '{{ ((s|e)|urlencode) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-urlencode', '{% autoescape true %}{{ ((s|e)|urlencode) is escaped }}|{{ (s|urlencode) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-filesizeformat', '{{ ((s|e)|filesizeformat) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-filesizeformat', '{% autoescape true %}{{ ((s|e)|filesizeformat) is escaped }}|{{ (s|filesizeformat) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-center', '{{ ((s|e)|center) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-center', '{% autoescape true %}{{ ((s|e)|center) is escaped }}|{{ (s|center) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-unique|list|first', '{{ ((s|e)|unique|list|first) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-unique|list|first', '{% autoescape true %}{{ ((s|e)|unique|list|first) is escaped }}|{{ (s|unique|list|first) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-sort|first', '{{ ((s|e)|sort|first) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-sort|first', '{% autoescape true %}{{ ((s|e)|sort|first) is escaped }}|{{ (s|sort|first) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-batch(1)|first|first', '{{ ((s|e)|batch(1)|first|first) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-batch(1)|first|first', '{% autoescape true %}{{ ((s|e)|batch(1)|first|first) is escaped }}|{{ (s|batch(1)|first|first) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-slice(1)|first|first', '{{ ((s|e)|slice(1)|first|first) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-slice(1)|first|first', '{% autoescape true %}{{ ((s|e)|slice(1)|first|first) is escaped }}|{{ (s|slice(1)|first|first) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-filter-xmlattr', '{{ (d|xmlattr) is escaped }}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('ae-markup-filter-xmlattr', '{% autoescape true %}{{ (d|xmlattr) is escaped }}|{{ (s|string) is escaped }}{% endautoescape %}', '{"s": "<a> a&b", "d": {"k": "<"}}')
case('markup-methods', "{% for m in ['upper','lower','title','capitalize','swapcase','strip','lstrip','rstrip','center','ljust','rjust','zfill','expandtabs','casefold'] %}{{ m }}={{ (s|e)[m]() is escaped if m not in ['center','ljust','rjust','zfill'] else 1 }} {% endfor %}", '{"s": "<a>"}')
case('markup-center-method', "{{ ((s|e).center(9, '<')) }}|{{ (s|e).ljust(6) is escaped }}|{{ (s|e).replace('a', '&') }}", '{"s": "<a>"}')
case('markup-split', "{{ (s|e).split('&') }}", '{"s": "<a>"}')
case('markup-split-more', "{{ (s|e).rsplit('&', 1) }}|{{ (s|e).partition(';') }}|{{ ('a\\nb'|safe).splitlines() }}|{{ (s|e).split() }}", '{"s": "<a> b"}')
case('ae-replace-markup-old', "{% autoescape true %}{{ s|replace('&', '<') }}|{{ (s|e)|replace('&', '<') }}|{{ s|replace(o|safe, '<') }}{% endautoescape %}", '{"s": "a&b", "o": "&"}')
case('markup-strip-chars', "{{ (s|e).strip('&;') }}|{{ (s|e).replace('&', '<') }}|{{ (s|e).ljust(7, '&') }}", '{"s": "&"}')

# Errors, lines and the rebuilt instruction streams (jumps, loops, macros) inside the tag.
case('ae-error-line', '{% autoescape true %}\n\n{{ 1 // 0 }}{% endautoescape %}', '{}')
case('ae-error-undefined-attr', '{% autoescape true %}\n{{ x.y.z }}{% endautoescape %}', '{}')
case('ae-error-in-macro-loop', '{% macro m(xs) %}{% autoescape true %}{% for x in xs %}{{ x.a.b }}{% endfor %}{% endautoescape %}{% endmacro %}\n{{ m([{}]) }}', '{}')
case('ae-error-value-undefined-attr', '{% autoescape x.y %}{% endautoescape %}', '{}')
case('ae-whitespace-control', '{% autoescape true -%}\n  {{- s -}}  \n{%- endautoescape %}|{{+ s }}', '{"s": "<"}')
case('ae-recursive-loop', '{% autoescape true %}{% for x in xs recursive %}{{ x.n }}{% if x.c %}[{{ loop(x.c) }}]{% endif %}{% endfor %}{% endautoescape %}', '{"xs": [{"n": "<", "c": [{"n": "&"}]}]}')
case('ae-with', '{% autoescape true %}{% with a = s %}{{ a }}{% endwith %}{% endautoescape %}', '{"s": "<"}')
case('ae-macro-caller-args', "{% macro m() %}{{ caller('<') }}{% endmacro %}{% autoescape true %}{% call(v) m() %}{{ v }}{% endcall %}{% endautoescape %}", '{}')
case('ae-dict-literal', "{% autoescape true %}{{ {'a': s} }}{{ (s, 1) }}{% endautoescape %}", '{"s": "<"}')
case('ae-cycler-joiner', "{% autoescape true %}{% set j = joiner('<') %}{% for x in xs %}{{ j() }}{{ x }}{% endfor %}{% endautoescape %}", '{"xs": ["a", "b"]}')
case('ae-loop-cycle', "{% autoescape true %}{% for x in xs %}{{ loop.cycle('<', '>') }}{% endfor %}{% endautoescape %}", '{"xs": [1, 2]}')
case('ae-set-block-filter', '{% autoescape true %}{% set x | upper %}<a>{{ s }}{% endset %}{{ x }}{% endautoescape %}', '{"s": "<b>"}')
case('ae-if-in-concat', "{% autoescape true %}{{ (s if s else 'x') ~ (t|e) }}{% endautoescape %}", '{"s": "<", "t": ">"}')

# ---------------------------------------------------------------------------------------------
# str.format: the one CPython port shared with the fstring engine (numbering, nested specs,
# conversions, lookups and their errors)
# ---------------------------------------------------------------------------------------------
case("method-format-auto-nested", "{{ '{:{}}|{}'.format('a', 3, 'b') }}")
case("method-format-manual", "{{ '{1}{0}{1}'.format(1, 2) }} {{ '{0[1]:>{1}}'.format([1, 2], 3) }}")
case("method-format-auto-then-manual", "{{ '{}{0}'.format(1) }}")
case("method-format-manual-then-auto", "{{ '{0}{}'.format(1) }}")
case("method-format-index-out-of-range", "{{ '{}{}'.format(1) }}")
case("method-format-unknown-conversion", "{{ '{0!x}'.format(1) }}")
case("method-format-conversion-then-junk", "{{ '{0!rr}'.format(1) }}")
case("method-format-negative-key", "{{ '{0[-1]}'.format([1, 2]) }}")
case("method-format-list-index", "{{ '{0[5]}'.format([1, 2]) }}")
case("method-format-tuple-index", "{{ '{0[5]}'.format((1, 2)) }}")
case("method-format-tuple-key", "{{ '{0[x]}'.format((1, 2)) }}")
case("method-format-str-key", "{{ '{0[1]}|{0[x]}'.format('ab') }}")
case("method-format-none-index", "{{ '{0[0]}'.format(none) }}")
case("method-format-dict-int-key", "{{ '{0[0]}'.format(d) }}", '{"d": {"a": 1}}')
case("method-format-missing-keyword", "{{ '{a}'.format(b=1) }}")
case("method-format-conversions", "{{ '{a!r:>6}|{a!a}|{a!s:^7}'.format(a='é') }}")
case("method-format-too-deep", "{{ '{:{:{}}}'.format(1, 2, 3) }}")
case("method-format-unclosed", "{{ '{x'.format(x=1) }}")
case("method-format-single-brace", "{{ '}'.format() }}")
case("method-format-nested-bad-spec", "{{ '{0:{1}d}'.format(7, 'x') }}")

# ---------------------------------------------------------------------------------------------
# % formatting, tojson and pprint: py's printf layout (by format()'s padding code), json.dumps
# and pprint.pformat
# ---------------------------------------------------------------------------------------------
case("percent-zero-pad-inf", "[{{ '%05f'|format(x) }}]", '{"x": 1e400}')
case("percent-alt-hex-zero-pad", "[{{ '%#06x'|format(-31) }}] [{{ '%#5x'|format(255) }}] [{{ '%#X'|format(255) }}] [{{ '%-#8o'|format(8) }}]")
case("percent-int-precision", "[{{ '%.3d'|format(-5) }}] [{{ '%08.3d'|format(-5) }}] [{{ '%8.3d'|format(-5) }}] [{{ '%.3x'|format(5) }}] [{{ '%#.3x'|format(5) }}]")
case("percent-flags", "[{{ '%-05d'|format(3) }}] [{{ '%+05d'|format(3) }}] [{{ '%05s'|format('a') }}] [{{ '% d'|format(5) }}] [{{ '%05.1f'|format(-2.25) }}] [{{ '%08.2e'|format(-1234.5) }}]")
case("percent-star", "[{{ '%*d'|format(5, 1) }}] [{{ '%-*d'|format(-5, 1) }}] [{{ '%.*f'|format(2, 3.14159) }}]")
case("percent-big-int", "[{{ '%d'|format(x) }}] [{{ '%x'|format(x) }}] [{{ '%60d'|format(x) }}] [{{ '%f'|format(y) }}]", '{"x": 1606938044258990275541962092341162602522202993782792835301376, "y": 170141183460469231731687303715884105729}')
case("percent-float-as-int", "[{{ '%d'|format(3.7) }}] [{{ '%d'|format(1e20) }}] [{{ '%i'|format(true) }}] [{{ '%x'|format(true) }}] [{{ '%e'|format(true) }}]")
case("percent-conversions-ascii", "[{{ '%r'|format('é') }}] [{{ '%a'|format('é') }}] [{{ '%a'|format('a\"b\\'') }}] [{{ '%.2s'|format('abc') }}] [{{ '%5c'|format(65) }}]")
case("percent-x-float", "{{ '%x'|format(3.5) }}")
case("percent-c-string", "{{ '%c'|format('ab') }}")
case("percent-c-range", "{{ '%c'|format(1114112) }}")
case("percent-unsupported", "{{ '%z'|format(1) }}")
case("percent-d-str", "{{ '%d'|format('x') }}")
case("percent-x-str", "{{ '%x'|format('x') }}")
case("percent-f-str", "{{ '%f'|format('x') }}")
case("percent-d-inf", "{{ '%d'|format(x) }}", '{"x": 1e400}')
case("percent-operator-mapping", "[{{ '%(a)s|%(b)05.1f' % {'a': [1], 'b': 2} }}] [{{ '%s' % {'a': 1} }}]")
case("percent-mapping-missing", "{{ '%(it\\'s)s' % {'a': 1} }}")
case("tojson-big-int", "{{ x|tojson }} {{ {'k': [x, 1.5, none, true]}|tojson }}", '{"x": 123456789012345678901234567890123456789012}')
case("pprint-markup-and-tuple", "{{ ('a'|e, (1,), [('x', 'y')])|pprint }}")

# ---------------------------------------------------------------------------------------------
# Calls, callables, scoping and mutation (bound methods as values, the `callable` test, calling
# the result of a filter or expression, Jinja2's call-argument order, `for`/`in` over None and
# Undefined, `with` scoping, list/dict methods that change their object, blocks in macros,
# `loop()` in a filtered recursive loop, `{% do %}` being an extension)

case("callable-globals", "{{ range is callable }} {{ lipsum is callable }} {{ dict is callable }} {{ cycler is callable }} {{ joiner is callable }} {{ namespace is callable }}")
case("callable-macro-and-caller", "{% macro m() %}{{ caller is callable }}{% endmacro %}{{ m is callable }} {% call m() %}{% endcall %}")
case("callable-loop-and-cycle", "{% for x in [1] %}{{ loop is callable }} {{ loop.cycle is callable }} {{ loop.changed is callable }}{% endfor %}")
case("callable-bound-methods", "{{ 'a'.upper is callable }} {{ s.upper is callable }} {{ l.append is callable }} {{ d.get is callable }} {{ (1, 2).index is callable }}", '{"s": "x", "l": [1], "d": {}}')
case("callable-non-callables", "{{ 1 is callable }} {{ s is callable }} {{ l is callable }} {{ d is callable }} {{ none is callable }} {{ cycler(1) is callable }} {{ namespace() is callable }}", '{"s": "x", "l": [1], "d": {}}')
case("callable-undefined", "{{ missing is callable }} {{ s.nope is callable }}", '{"s": "x"}')
case("callable-joiner-instance", "{{ joiner() is callable }} {{ cycler(1).next is callable }}")
case("call-attr-filter-result", "{{ (x|attr('upper'))() }} {{ (x|attr('replace'))('a', 'b') }}", '{"x": "ab"}')
case("call-attr-filter-dict-method", "{{ (d|attr('get'))('k') }} {{ (d|attr('get'))('z', 0) }}", '{"d": {"k": 3}}')
case("call-parenthesized-method", "{{ ('a'.upper)() }} {{ (d.get)('k') }} {{ (s.split)(',')|list }}", '{"d": {"k": 3}, "s": "a,b"}')
case("call-filter-result-not-callable", "{{ (x|first)() }}", '{"x": ["ab"]}')
case("call-method-stored-in-set", "{% set up = s.upper %}{{ up() }} {{ up is callable }}", '{"s": "hi"}')
case("call-loop-cycle-as-value", "{% for x in [1, 2, 3] %}{% set c = loop.cycle %}{{ c('a', 'b') }}{% endfor %}")
case("call-cycler-next-as-value", "{% set c = cycler(1, 2) %}{% set n = c.next %}{{ n() }}{{ n() }}{{ n() }}")
case("attr-dict-method-over-key", "{{ d.items is callable }} {{ d['items'] }} {{ d.values()|list }}", '{"d": {"items": 5}}')
case("attr-dict-get-key-named-like-method", "{% for k in d.keys() %}{{ k }}{% endfor %} {{ d['keys'] }}", '{"d": {"keys": 1, "b": 2}}')
case("attr-int-method-name-undefined", "{{ x.upper is defined }}", '{"x": 1}')
case("method-tuple-count-index", "{{ (1, 2, 1).count(1) }} {{ (1, 2).index(2) }}")
case("method-tuple-index-missing", "{{ (1, 2).index(5) }}")
case("call-args-positional-after-keyword", "{{ f(a=1, 2) }}")
case("call-args-positional-after-star", "{{ f(*a, 2) }}")
case("call-args-keyword-after-double-star", "{{ f(**a, b=2) }}")
case("call-args-star-after-double-star", "{{ f(**a, *b) }}")
case("call-args-two-stars", "{{ f(*a, *b) }}")
case("call-args-two-double-stars", "{{ f(**a, **b) }}")
case("call-args-keyword-after-star-ok", "{{ dict(*[], a=1) }}")
case("call-args-filter-order", "{{ x|default(a=1, 2) }}")
case("call-args-error-line", "a\n{{ f(a=1,\n 2) }}")
case("call-non-callable-float", "{{ x() }}", '{"x": 1.5}')
case("call-non-callable-none", "{{ x() }}", '{"x": null}')
case("call-non-callable-str", "{{ x() }}", '{"x": "s"}')
case("loop-over-none-raises", "{% for x in none %}{{ x }}{% endfor %}")
case("loop-over-none-else", "{% for x in none %}a{% else %}e{% endfor %}")
case("loop-over-int-raises", "{% for x in 1 %}{% endfor %}")
case("loop-over-bool-raises", "{% for x in true %}{% endfor %}")
case("loop-over-float-raises", "{% for x in 1.5 %}{% endfor %}")
case("loop-over-none-filtered", "{% for x in none if x %}{% endfor %}")
case("loop-over-undefined-empty", "{% for x in missing %}a{% else %}e{% endfor %}")
case("loop-over-none-var", "{% for x in v %}{% endfor %}", '{"v": null}')
case("in-undefined-container", "{{ 1 in missing }} {{ 1 not in missing }} {{ missing in [1] }} {{ missing in missing }}")
case("in-none-container", "{{ 1 in none }}")
case("list-filter-none", "{{ none|list }}")
case("list-filter-undefined", "{{ missing|list }}")
case("with-values-in-outer-scope", "{% with a=1, b=a %}{{ a }} {{ b }}{% endwith %}", '{"a": 5}')
case("with-values-outer-undefined", "{% with a=1, b=a %}[{{ a }}{{ b }}]{% endwith %}")
case("with-nested-outer-scope", "{% with a=2 %}{% with a=a+1, b=a*10 %}{{ a }} {{ b }}{% endwith %} {{ a }}{% endwith %}")
case("with-in-loop-outer-scope", "{% for i in [1, 2] %}{% with a=i, b=i*2, c=a %}{{ a }}{{ b }}{{ c }};{% endwith %}{% endfor %}", '{"a": "o"}')
case("with-in-macro-outer-scope", "{% macro m(x) %}{% with a=x, b=a %}{{ a }}{{ b }}{% endwith %}{% endmacro %}{{ m(3) }}", '{"a": "o"}')
case("with-conditional-value", "{% with a=1, b=a if a else 'x' %}{{ a }} {{ b }}{% endwith %}")
case("with-in-block-outer-scope", "{% block b %}{% with a=1, b=a %}[{{ a }}{{ b }}]{% endwith %}{% endblock %}", '{"a": 9}')
case("mutate-list-append", "{% set l = [1, 2] %}{{ l.append(3) }} {{ l }} {{ l|length }}")
case("mutate-list-append-in-loop", "{% set l = [] %}{% for i in range(3) %}{% set _ = l.append(i) %}{% endfor %}{{ l }}")
case("mutate-list-alias", "{% set l = [1, 2, 3] %}{% set m = l %}{{ m.pop() }} {{ l }} {{ m.pop(0) }} {{ l }}")
case("mutate-list-pop-empty", "{% set l = [] %}{{ l.pop() }}")
case("mutate-list-pop-out-of-range", "{% set l = [1] %}{{ l.pop(5) }}")
case("mutate-list-remove-missing", "{% set l = [1, 2] %}{{ l.remove(5) }}")
case("mutate-list-remove-index-count", "{% set l = [1, 2, 1] %}{{ l.remove(1) }} {{ l }} {{ l.index(2) }} {{ l.count(1) }}")
case("mutate-list-sort-reverse", "{% set l = [3, 1, 2] %}{{ l.sort() }}{{ l }} {{ l.sort(reverse=true) }}{{ l }} {{ l.reverse() }}{{ l }}")
case("mutate-list-insert", "{% set l = [1] %}{{ l.insert(0, 'a') }}{{ l.insert(-1, 'b') }}{{ l.insert(99, 'c') }} {{ l }}")
case("mutate-list-extend-clear", "{% set l = [1] %}{{ l.extend([2, 3]) }}{{ l.extend('ab') }} {{ l }} {{ l.clear() }} {{ l }}")
case("mutate-list-copy-independent", "{% set l = [1] %}{% set c = l.copy() %}{{ c.append(2) }} {{ l }} {{ c }}")
case("mutate-list-literal-fresh-each-time", "{% for i in range(2) %}{% set l = [0] %}{% set _ = l.append(i) %}{{ l }}{% endfor %}")
case("mutate-list-in-macro", "{% macro add(l) %}{% set _ = l.append(1) %}{% endmacro %}{% set l = [] %}{{ add(l) }}{{ add(l) }}{{ l }}")
case("mutate-list-still-a-list", "{% set l = [1, 2] %}{% set _ = l.append(3) %}{{ l == [1, 2, 3] }} {{ l|join(',') }} {{ l|tojson }} {{ l[0] }} {{ l[-1] }} {{ l[1:] }} {{ 2 in l }} {{ l|first }} {{ l|sum }} {{ l + [4] }}")
case("mutate-list-nested-in-tuple", "{% set t = (1, [2]) %}{% set _ = t[1].append(3) %}{{ t }}")
case("mutate-list-in-namespace", "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(1) %}{{ ns.l }}")
case("mutate-list-literal-call", "{{ [1, 2].append(3) }}")
case("mutate-context-list", "{{ x.append(4) }} {{ x }} {{ y.x.append(2) }} {{ y }}", '{"x": [1, 2], "y": {"x": [1]}}')
case("mutate-context-alias", "{% set a = x %}{{ a.append(3) }} {{ x }} {{ x|length }}", '{"x": [1]}')
case("mutate-dict-update-pop", "{% set d = {'a': 1} %}{{ d.update({'b': 2}) }} {{ d }} {{ d.update(c=3) }} {{ d }} {{ d.pop('a') }} {{ d }}")
case("mutate-dict-update-pairs", "{% set d = {} %}{{ d.update([('a', 1), ['b', 2]]) }} {{ d }}")
case("mutate-dict-pop-missing", "{% set d = {} %}{{ d.pop('x') }}")
case("mutate-dict-pop-default-setdefault", "{% set d = {} %}{{ d.pop('x', 7) }} {{ d.setdefault('k', []) }} {{ d.k.append(1) }} {{ d }} {{ d.setdefault('k') }}")
case("mutate-dict-popitem", "{% set d = {'a': 1, 'b': 2} %}{{ d.popitem() }} {{ d }}")
case("mutate-dict-popitem-empty", "{% set d = {} %}{{ d.popitem() }}")
case("mutate-dict-copy-shallow", "{% set d = {'a': [1]} %}{% set e = d.copy() %}{{ e.a.append(2) }} {{ d }} {{ e.update(z=1) }} {{ d }} {{ e }}")
case("mutate-dict-context", "{{ d.update(k=2) }} {{ d.k }} {{ d['k'] }} {% for k, v in d.items() %}{{ k }}={{ v }} {% endfor %}", '{"d": {"k": 1, "j": 0}}')
case("mutate-dict-still-a-dict", "{% set d = {'a': 1} %}{% set _ = d.update(b=2) %}{{ d.keys()|list }} {{ d.items()|list }} {{ d.get('a') }} {{ d|dictsort }} {{ d|length }} {{ d.a }} {{ d['b'] }} {{ d|tojson }} {{ 'a' in d }}")
case("mutate-list-of-dicts", "{% set l = [{'a': 1}] %}{% set _ = l[0].update(b=2) %}{{ l }} {{ l|map(attribute='b')|list }}")
case("mutate-unhashable-key", "{% set d = {} %}{{ d.setdefault([1], 2) }}")
case("macro-with-block", "{% macro x() %}{% block foo %}x{% endblock %}{% endmacro %}{{ x() }}{{ x() }}")
case("macro-with-block-whitespace", "{% macro x() %}{%- block foo -%}  x  {%- endblock -%}{% endmacro %}[{{ x() }}]")
case("call-block-with-block", "{% macro m() %}({{ caller() }}){% endmacro %}{% call m() %}{% block b %}y{% endblock b %}{% endcall %}")
case("recursive-loop-filter", "{% for p in [tree] if p.name != 'skip' recursive %}{{ p.name }}({{ loop(p.kids) }}){% endfor %}", '{"tree": {"name": "root", "kids": [{"name": "skip", "kids": []}, {"name": "a", "kids": [{"name": "skip", "kids": []}, {"name": "b", "kids": []}]}]}}')
case("recursive-loop-filter-length", "{% for p in items if p.on recursive %}{{ loop.depth }}:{{ p.n }}/{{ loop.length }} {{ loop(p.c) }}{% endfor %}", '{"items": [{"n": 1, "on": true, "c": [{"n": 2, "on": false, "c": []}, {"n": 3, "on": true, "c": []}]}, {"n": 4, "on": false, "c": []}]}')
case("do-tag-is-an-extension", "{% do x %}")
case("do-tag-in-for", "{% for i in [1] %}{% do x %}{% endfor %}")
case("mutate-list-append-arity", "{% set l = [] %}{{ l.append(1, 2) }}")
case("mutate-list-insert-arity", "{% set l = [] %}{{ l.insert(1) }}")
case("mutate-list-append-keyword", "{% set l = [] %}{{ l.append(x=1) }}")
case("mutate-dict-pop-arity", "{% set d = {} %}{{ d.pop() }}")
case("mutate-dict-popitem-arity", "{% set d = {} %}{{ d.popitem(1) }}")
case("loop-recursive-over-none", "{% for p in [t] recursive %}{{ p.n }}{{ loop(p.k) }}{% endfor %}", '{"t": {"n": 1, "k": null}}')
case("loop-over-bound-method", "{% for i in order.items %}{{ i }}{% endfor %}", '{"order": {"items": [1, 2]}}')
case("attr-dict-method-over-key-length", "{{ order.items|length }}", '{"order": {"items": [1, 2]}}')

# ---------------------------------------------------------------------------------------------
# str.format attribute fields are getattr (not Jinja2's attribute-or-item): the JSON types have
# CPython's attributes and no others
# ---------------------------------------------------------------------------------------------
case("method-format-attr-numbers", "{{ '{0.real}|{0.imag}|{1.real}|{1.imag}|{2.numerator}|{2.denominator}|{3.real}'.format(5, 2.5, true, n) }}",
     '{"n": 12345678901234567890123}')
case("method-format-attr-dict-key-is-not-an-attribute", "{{ '{0.name}'.format(d) }}", '{"d": {"name": 1}}')
case("method-format-attr-list-missing", "{{ '{0.x}'.format(l) }}", '{"l": [1]}')
case("method-format-attr-class-and-doc", "{{ '{0.__class__}|{1.__class__}|{2.__doc__}'.format('a', d, none) }}", '{"d": {}}')
case("method-format-attr-float-numerator", "{{ '{0.numerator}'.format(2.5) }}")
case("method-format-attr-none-missing", "{{ '{0.nope}'.format(none) }}")
case("method-format-attr-dict-method", "{{ '{0[name]}|{0.keys}'.format(d)[:31] }}", '{"d": {"name": 1}}')
