//! Where a `--chart FILE` goes, and writing it there whole or not at all.
//!
//! The path is followed through symlinks to the file they name, so a link stays a link. A regular
//! file (or a new one) is written to a temporary file beside it and renamed over it once complete;
//! a special file (a FIFO, a device such as `/dev/null` or `/dev/full`) is written in place, as any
//! tool writes it, and is never replaced by a regular file. Everything that can be found out before
//! the work starts is checked then, so a long `sim` never loses its result to a bad path.

use super::CliError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// File name extensions of other formats than SVG, which a chart is refused under.
const OTHER_FORMATS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "pdf", "eps", "ps", "html", "htm", "txt", "json",
];

/// Symlinks followed before giving up, as the kernel's own limit (ELOOP).
const MAX_LINKS: usize = 40;

/// Where a chart is written.
#[derive(Debug, PartialEq)]
pub enum Target {
    /// A regular file, existing or new: written beside, then renamed over this path.
    Regular(PathBuf),
    /// A special file (FIFO, device, socket): opened and written in place.
    Special(PathBuf),
}

fn refuse(path: &Path, why: impl std::fmt::Display) -> CliError {
    CliError::usage(format!("cannot write the chart to {}: {why}", path.display()))
}

/// The file `path` names, through any symlinks, and what kind of file it is; refuses a folder, a
/// path that names no file, a missing folder, and (for a regular file) a folder where no file can
/// be made, by making and removing one.
pub fn target(path: &Path) -> Result<Target, CliError> {
    if path.file_name().is_none() {
        return Err(refuse(path, "it is not a file name"));
    }
    // A chart is SVG: a name that says another format would hold SVG under a wrong name.
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if OTHER_FORMATS.contains(&ext.as_str()) {
        let svg = path.with_extension("svg");
        return Err(refuse(
            path,
            format_args!(
                "charts are SVG, not {}; give {} (and, for a .{ext}, convert it: `rsvg-convert {} -o {}`)",
                ext.to_uppercase(),
                svg.display(),
                svg.display(),
                path.display()
            ),
        ));
    }
    let mut at = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return new_file(path, at),
            Err(e) => return Err(refuse(path, e)),
        };
        if meta.file_type().is_symlink() {
            let link = std::fs::read_link(&at).map_err(|e| refuse(path, e))?;
            at = if link.is_absolute() { link } else { folder_of(&at).join(link) };
            continue;
        }
        if meta.is_dir() {
            return Err(refuse(
                path,
                format_args!("it is a folder; give a file name, e.g. {}", path.join("chart.svg").display()),
            ));
        }
        if !meta.is_file() {
            return Ok(Target::Special(at));
        }
        return new_file(path, at);
    }
    Err(refuse(path, format_args!("more than {MAX_LINKS} symlinks lead from it")))
}

/// A regular file at `at` (the end of `path`'s links), existing or not: its folder must exist and
/// take a new file.
fn new_file(path: &Path, at: PathBuf) -> Result<Target, CliError> {
    let dir = folder_of(&at);
    if !dir.is_dir() {
        return Err(refuse(path, format_args!("the folder {} does not exist", dir.display())));
    }
    let probe = temporary(&dir);
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(f) => {
            drop(f);
            let _ = std::fs::remove_file(&probe);
            Ok(Target::Regular(at))
        }
        Err(e) => Err(refuse(path, format_args!("cannot make a file in {}: {e}", dir.display()))),
    }
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A temporary file's name in `dir`: short, whatever the length of the chart's own name (a legal
/// 254-byte name with a suffix is not).
fn temporary(dir: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    dir.join(format!(
        ".rulebook-{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Writes `bytes` to `path` as `target` found it: a regular file whole or not at all (on failure
/// the temporary file is removed and the old file is untouched), a special file in place.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |e: std::io::Error| refuse(path, e);
    match target(path)? {
        Target::Special(at) => {
            let mut f = std::fs::OpenOptions::new().write(true).open(&at).map_err(fail)?;
            f.write_all(bytes).and_then(|()| f.flush()).map_err(fail)
        }
        Target::Regular(at) => {
            let tmp = temporary(&folder_of(&at));
            let written = (|| {
                let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
                f.write_all(bytes)?;
                f.sync_all()?;
                drop(f);
                std::fs::rename(&tmp, &at)
            })();
            if let Err(e) = written {
                let _ = std::fs::remove_file(&tmp);
                return Err(fail(e));
            }
            Ok(())
        }
    }
}
