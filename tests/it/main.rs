//! The crate's one integration-test binary (modules per area, as GitButler does).

mod cli_template;
mod escape;
