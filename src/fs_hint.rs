//! Clearer file-system errors: where a directory is expected and a file is in the way, say so
//! ("x is a file, not a directory") instead of the OS's "File exists" or "Not a directory".

use std::io;
use std::path::{Path, PathBuf};

/// The first existing ancestor of `path` (itself included) when it is not a directory: the
/// file that stops `path` from being (or being created as) a directory.
pub fn file_in_the_way(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .find_map(|p| std::fs::metadata(p).ok().map(|m| (p, m)))
        .and_then(|(p, m)| (!m.is_dir()).then(|| p.to_owned()))
}

/// `e`, from an operation that needs `dir` to be a directory, reworded when a file is in the
/// way; other errors are returned unchanged.
pub fn explain_dir_error(dir: &Path, e: io::Error) -> io::Error {
    if !matches!(
        e.kind(),
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists
    ) {
        return e;
    }
    match file_in_the_way(dir) {
        Some(file) => io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("{} is a file, not a directory", file.display()),
        ),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_the_way_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(file_in_the_way(&file), Some(file.clone()));
        assert_eq!(file_in_the_way(&file.join("a/b")), Some(file.clone()));
        assert_eq!(file_in_the_way(&dir.path().join("new/dir")), None);
        let e = std::fs::create_dir_all(file.join("a")).unwrap_err();
        let shown = explain_dir_error(&file.join("a"), e).to_string();
        assert_eq!(
            shown,
            format!("{} is a file, not a directory", file.display())
        );
        let other = io::Error::from(io::ErrorKind::PermissionDenied);
        assert_eq!(
            explain_dir_error(&file, other).kind(),
            io::ErrorKind::PermissionDenied
        );
    }
}
