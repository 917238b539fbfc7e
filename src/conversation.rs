//! A conversation recorded as scene files, one per call in call order: loaded, each one's chat
//! request rendered, and the requests blamed for what a provider's prompt cache could reuse
//! (`prompt-inspector cache`). It sits above both the injection engine and the run loop, which
//! know nothing of files.

use std::path::{Path, PathBuf};

use crate::inject::{self, Options};
use crate::runloop::blame::{blame, CacheReport};
use crate::scene::{self, SceneError};
use crate::segments::Family;

/// Loads the scenes (in call order), renders each one's chat request and blames them; steps are
/// labelled by file name. Used by `prompt-inspector cache` and the cache goldens' test.
pub fn blame_files(paths: &[PathBuf]) -> Result<CacheReport, SceneError> {
    let mut steps = Vec::with_capacity(paths.len());
    for path in paths {
        let scene = scene::load_file(path)?;
        let options = Options {
            base_dir: path.parent().map(Path::to_path_buf),
            ..Default::default()
        };
        let label = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let report = inject::render_with(&scene, Family::Chat, &options);
        steps.push((label, report));
    }
    Ok(blame(&steps))
}
