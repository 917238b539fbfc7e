"""Writes `src/py/format/testdata/format_cases.jsonl`: `format(json.loads(value), spec)` for a
grid of JSON values and format specs, each line `[value_json, spec, "OK <json output>"]` or
`[value_json, spec, "ERR <ExceptionClass> <json message>"]`. The unit test in
`src/py/format/tests.rs` checks the Rust `format` against every line.
Run with CPython 3.11: python3 conformance/gen_format_cases.py
"""

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "py" / "format" / "testdata" / "format_cases.jsonl"

VALUES = ['0', '1234567', '-255', '123456789012345678901234567890', '-98765432109876543210987654321',
          'true', 'false', '3.141592653589793', '-1234.5678', '1e16', '1e-07', '1e400', '-1e400',
          '-0.0', '0.125', '2.675', '"abc"', '"中文字"', '""', 'null', '[1, "a"]', '{"k": 1}', '2.0',
          '1114111', '1114112', '65', '-1', '-0.0001', '1.7976931348623157e308', '5e-324',
          '9007199254740993', '1' + '0' * 400, '99999999999999999999999999999']
SPECS = ['', 'd', 'b', 'o', 'x', 'X', 'n', 'c', '#b', '#o', '#x', '#X', 'e', 'E', 'f', 'F', 'g', 'G',
         '%', '.2f', '.3e', '+', ' ', '12', '<12', '>12', '^12', '=12', '*^15', '012', '+020,', ',',
         '_', '_x', '#_b', '#012x', '0=#14X', '.3', 'z', 's', '010,', 'z.2f', '.0f', '.30f', '.50e',
         '.0g', '.17g', '.4', '#.0f', '#g', '#.3', '=+14.2f', '*^16.3f', '012.3f', ',.2f', '_.3f',
         '.3%', '10', '<10', '^11', '10.3', '^9.2s', '.0', '=10', '#', ',s', '08.1%', '012,.1f',
         '#40o', '中^7', '😀>5', '0^8', '0<6', '٣', '.5e', '08', '+010', ',x', ',_', '_,', '.f',
         '>5d5', 'dd', ',n', '_n', '#c', '+c', '.2d', 'z.1f', '#.0e', '#.0%', ' 020,.3f', '-^+#09,',
         'x<', '<', '0', '00', '#.17g', '.99999999999f', '99999999999999999999',
         '\x00<5', '\x01', 'q', 'é', ',c', '_s', '=^5', 'z#', '.1n', 'n,', ',%', '_g', '08,', '09,',
         '#012_x', '0=10,']


def main():
    assert sys.version_info[:2] == (3, 11), "generate with CPython 3.11"
    lines = []
    for v in VALUES:
        x = json.loads(v)
        for s in SPECS:
            try:
                r = "OK " + json.dumps(format(x, s), ensure_ascii=False)
            except Exception as e:  # noqa: BLE001 - every exception is data here
                r = "ERR " + type(e).__name__ + " " + json.dumps(str(e), ensure_ascii=False)
            lines.append(json.dumps([v, s, r], ensure_ascii=False))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(lines)} cases")


if __name__ == "__main__":
    main()
