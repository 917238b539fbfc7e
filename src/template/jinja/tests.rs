//! Outputs checked against Jinja2 3.1.6 (`Environment().from_string(src).render(**vars)`).
