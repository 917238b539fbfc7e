"""The CPython side of the template benchmark (benches/templates.rs): the same 10 KB template with
200 fields, parsed and rendered by str.format_map and Jinja2. Prints median nanoseconds per
operation as `name<TAB>ns`, for bench/templates.sh to put next to the Rust figures."""

import json
import statistics
import timeit

import jinja2

FSTRING_FIELDS = ["{user[name]}", "{count:>8,}", "{price:.2f}", "{items[2]!r}", "{msg}"]
JINJA_FIELDS = ["{{ user.name }}", "{{ count }}", "{{ price | round(2) }}", "{{ items[2] }}", "{{ msg }}"]
VARS = json.loads(
    '{"user": {"name": "Ada 洛芙莱斯", "id": 7}, "count": 1234567, "price": 3.14159,'
    ' "items": ["a", "b", "c\'d", "e"], "msg": "记录工作笔记 and carry on"}'
)


def template(fields):
    return "".join(
        f"Line {i:03}: the tool notes 工作笔记 for item — {fields[i % 5]}\n" for i in range(200)
    )


def median_ns(fn, number):
    runs = timeit.repeat(fn, number=number, repeat=7)
    return statistics.median(runs) / number * 1e9


def main():
    fsrc = template(FSTRING_FIELDS)
    jsrc = template(JINJA_FIELDS)
    env = jinja2.Environment()
    jt = env.from_string(jsrc)
    # format_map parses while it renders: there is no separate parse step to time.
    print(f"fstring/render\t{median_ns(lambda: fsrc.format_map(VARS), 2000):.0f}")
    print(f"jinja2/parse\t{median_ns(lambda: jinja2.Environment().from_string(jsrc), 20):.0f}")
    print(f"jinja2/render\t{median_ns(lambda: jt.render(**VARS), 500):.0f}")


if __name__ == "__main__":
    main()
