//! Clearer file-system errors: where a directory is expected and a file is in the way, say so
//! ("x is a file, not a directory") instead of the OS's "File exists" or "Not a directory";
//! and whether a path lies on temporary storage (for `doctor`).

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

/// Directories whose content the system deletes (at reboot, or by age with
/// systemd-tmpfiles), besides `$TMPDIR`.
const TEMPORARY_DIRS: [&str; 3] = ["/tmp", "/var/tmp", "/dev/shm"];
/// File-system types held in memory: their content is gone at reboot.
const MEMORY_FS_TYPES: [&str; 2] = ["tmpfs", "ramfs"];

/// Why `path` (relative to the working directory when relative) is on temporary storage, if
/// it is: on a tmpfs or ramfs mount (from `/proc/self/mounts`), or under `/tmp`, `/var/tmp`,
/// `/dev/shm` or `$TMPDIR`. Symbolic links of the existing part of the path are followed.
pub fn temporary_storage(path: &Path) -> Option<String> {
    let path = resolved(path);
    let shown = path.display();
    if let Some((mount, fs_type)) = std::fs::read_to_string("/proc/self/mounts")
        .ok()
        .and_then(|mounts| mount_of(&mounts, &path))
    {
        if MEMORY_FS_TYPES.contains(&fs_type.as_str()) {
            return Some(format!(
                "{shown} is on a {fs_type} file system (mounted on {}), which is held in \
                 memory: its content is lost at reboot",
                mount.display()
            ));
        }
    }
    let tmpdir = std::env::temp_dir();
    TEMPORARY_DIRS
        .iter()
        .map(PathBuf::from)
        .chain(std::iter::once(tmpdir))
        .filter(|dir| dir.is_absolute() && dir.as_os_str().len() > 1)
        .find(|dir| path.starts_with(resolved(dir)) || path.starts_with(dir))
        .map(|dir| {
            format!(
                "{shown} is under {}, a temporary directory: the system deletes its content \
                 (at reboot, or files unused for some days)",
                dir.display()
            )
        })
}

/// `path` made absolute, its longest existing ancestor with symbolic links resolved.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_owned());
    for ancestor in absolute.ancestors() {
        if let Ok(real) = std::fs::canonicalize(ancestor) {
            return match absolute.strip_prefix(ancestor) {
                Ok(rest) if !rest.as_os_str().is_empty() => real.join(rest),
                _ => real,
            };
        }
    }
    absolute
}

/// The mount point holding `path` and its file-system type, from the text of
/// `/proc/self/mounts` (the longest mount point that is an ancestor of `path`).
fn mount_of(mounts: &str, path: &Path) -> Option<(PathBuf, String)> {
    mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let _device = fields.next()?;
            let mount = PathBuf::from(unescape_mount(fields.next()?));
            let fs_type = fields.next()?.to_owned();
            Some((mount, fs_type))
        })
        .filter(|(mount, _)| path.starts_with(mount))
        .max_by_key(|(mount, _)| mount.as_os_str().len())
}

/// A field of `/proc/self/mounts` with its octal escapes (`\040` for a space) decoded.
fn unescape_mount(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let code = rest
            .get(at + 1..at + 4)
            .and_then(|d| u8::from_str_radix(d, 8).ok());
        match code {
            Some(byte) => {
                out.push(char::from(byte));
                rest = &rest[at + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
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

    #[test]
    fn temporary_storage_is_recognised() {
        let mounts = "/dev/vda / ext4 rw 0 0\ntmpfs /run/my\\040dir tmpfs rw 0 0\n";
        assert_eq!(
            mount_of(mounts, Path::new("/run/my dir/offsets.json")),
            Some((PathBuf::from("/run/my dir"), "tmpfs".to_owned()))
        );
        assert_eq!(
            mount_of(mounts, Path::new("/srv/x")),
            Some((PathBuf::from("/"), "ext4".to_owned()))
        );
        let why = temporary_storage(Path::new("/tmp/connect/offsets.json")).unwrap();
        assert!(why.contains("/tmp"), "{why}");
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/offsets.json");
        if !here.starts_with("/tmp") {
            assert_eq!(temporary_storage(&here), None);
        }
    }
}
