//! `prompt-inspector check`: scenes against their goldens; exit 0 all match, 1 a mismatch or a
//! missing golden, 2 unreadable input.

use std::path::PathBuf;
use std::process::ExitCode;

use prompt_inspector::check::{self, Outcome};

pub fn run(paths: &[PathBuf], bless: bool) -> ExitCode {
    let scenes = match check::discover(paths) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if scenes.is_empty() {
        eprintln!("error: no *.scene.json files under the given paths");
        return ExitCode::from(2);
    }
    let (mut failed, mut unreadable) = (0, 0);
    for path in &scenes {
        let outcome = check::check_one(path, bless);
        println!("{:<17} {}", outcome.to_string(), path.display());
        match &outcome {
            Outcome::Mismatch(diff) => print!("{diff}"),
            Outcome::MissingGolden => println!(
                "  no golden at {} (write it with --bless, then review it)",
                check::golden_path(path).display()
            ),
            Outcome::Unreadable(e) => println!("  {e}"),
            Outcome::GoldenUnreadable(e) => println!("  {e}"),
            Outcome::Match | Outcome::Blessed => {}
        }
        match outcome {
            Outcome::Unreadable(_) | Outcome::GoldenUnreadable(_) => unreadable += 1,
            o if !o.ok() => failed += 1,
            _ => {}
        }
    }
    let passed = scenes.len() - failed - unreadable;
    println!("{passed} passed, {} failed", failed + unreadable);
    if unreadable > 0 {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
