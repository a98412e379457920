//! Records the git commit the engine is built from, for `kiraly --version`.
//! A tree without git (a release tarball, a copy) says `unknown`.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    // Only this repository's own history: a copy unpacked inside some other
    // repository must not report that one's commit.
    let top = git(&["rev-parse", "--show-toplevel"]);
    let ours = match (&top, Path::new(&manifest).canonicalize()) {
        (Some(top), Ok(manifest)) => Path::new(top).canonicalize().ok() == Some(manifest),
        _ => false,
    };
    let commit = ours
        .then(|| git(&["rev-parse", "--short", "HEAD"]))
        .flatten();
    println!(
        "cargo:rustc-env=KIRALY_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    // Run again when the commit changes: HEAD, the branch it names, and the
    // packed refs (where a branch may live after `git gc`).
    println!("cargo:rerun-if-changed=build.rs");
    // A path that does not exist would make cargo run this on every build.
    if ours {
        let mut names = vec!["HEAD".to_string(), "packed-refs".to_string()];
        names.extend(git(&["symbolic-ref", "-q", "HEAD"]));
        for name in names {
            if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
                if Path::new(&path).exists() {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
        }
    }
}
