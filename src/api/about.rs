//! `about`: which core answers the operations, for the app's About box (the desktop shell adds
//! its own version from `app_info`; in a browser the core is `prompt-inspector serve` itself).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AboutResponse {
    /// The core library's crate name, `prompt-inspector`.
    pub name: String,
    /// Its version, as in its Cargo.toml (what `prompt-inspector --version` prints).
    pub version: String,
}

pub fn about() -> AboutResponse {
    AboutResponse {
        name: env!("CARGO_PKG_NAME").to_owned(),
        version: crate::VERSION.to_owned(),
    }
}
