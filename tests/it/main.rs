//! The crate's one integration-test binary (modules per area, as GitButler does).

mod api;
mod check_ci;
mod cli_scene;
mod cli_template;
mod conformance;
mod conformance_upstream;
mod doc_links;
mod escape;
mod fixtures;
mod import;
mod inputs;
mod json_schema;
mod layers;
mod lint;
mod live;
mod provider_limits;
mod provider_specs;
mod providers;
mod regressions;
mod scene_load;
mod schema;
mod serve;
mod support;
mod tfrobot_tables;
mod tokens;
mod xbot_loop;
