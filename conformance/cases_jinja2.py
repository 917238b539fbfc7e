CASES = [("print-none", "{{ x }}", '{"x": null}')]
