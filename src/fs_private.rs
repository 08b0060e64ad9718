//! The worker's state on disk is private to the worker's user: every file connect-rs creates
//! for its data (the embedded log's segments, checkpoints, journal, group offsets and topic
//! configurations, the offsets and configurations files, their temporary files) is created
//! with mode 0600 and every directory with mode 0700, whatever the umask; when the embedded log
//! is opened for writing, what an older version left readable inside it is made private too.
//! connect-rs does not start on a data directory that other users can write (PostgreSQL's
//! rule for its data directory), nor keep a state file in a directory others can write unless
//! it has the sticky bit (such as `/tmp`).
//!
//! Files a connector writes for the user (FileStreamSink's output) are not state: they keep
//! the umask's modes, as in Kafka Connect.

use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};

/// The mode of the files connect-rs creates for its data.
pub const FILE_MODE: u32 = 0o600;
/// The mode of the directories connect-rs creates for its data.
pub const DIR_MODE: u32 = 0o700;

/// Group and other write permission.
const WRITABLE_BY_OTHERS: u32 = 0o022;
/// The sticky bit: only an entry's owner may remove or rename it.
const STICKY: u32 = 0o1000;

/// A directory that other users can write, so connect-rs does not keep its data there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {path} can be written by other users (mode {mode:04o}); connect-rs keeps its data private to the worker's user and does not start with it: expected no write permission for group and others, as connect-rs creates it (mode 0700). Run `chmod {fix} {path}`{hint}.")]
pub struct UnsafeDir {
    /// What the directory is ("The embedded log directory", ...).
    pub what: &'static str,
    /// The directory.
    pub path: PathBuf,
    /// Its permission bits.
    pub mode: u32,
    /// The `chmod` argument that fixes it.
    fix: &'static str,
    /// More advice, if any.
    hint: &'static str,
}

/// [`OpenOptions`] whose files are created with mode [`FILE_MODE`].
pub fn open_options() -> OpenOptions {
    #[allow(unused_mut)]
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Creates `dir` and its missing parents with mode [`DIR_MODE`] (existing ones are left as
/// they are).
///
/// # Errors
/// The I/O error.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)
}

/// A new temporary file in `dir` with mode [`FILE_MODE`], to be renamed over a state file.
///
/// # Errors
/// The I/O error.
pub fn temp_file_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(FILE_MODE));
    builder.tempfile_in(dir)
}

/// Gives `path` mode [`FILE_MODE`] (a file copied from another keeps the other's mode).
///
/// # Errors
/// The I/O error.
pub fn set_file_mode(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    std::fs::set_permissions(
        path,
        std::os::unix::fs::PermissionsExt::from_mode(FILE_MODE),
    )?;
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The permission bits of `path` (`None` when it does not exist).
fn mode_of(path: &Path) -> io::Result<Option<u32>> {
    match std::fs::metadata(path) {
        #[cfg(unix)]
        Ok(m) => Ok(Some(
            std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777,
        )),
        #[cfg(not(unix))]
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Checks that other users cannot write the data directory `dir` (the embedded log's).
///
/// # Errors
/// [`UnsafeDir`] when the group or others may write it (sticky or not).
pub fn check_data_dir(dir: &Path) -> Result<(), UnsafeDir> {
    match mode_of(dir) {
        Ok(Some(mode)) if mode & WRITABLE_BY_OTHERS != 0 => Err(UnsafeDir {
            what: "The embedded log directory",
            path: dir.to_owned(),
            mode,
            fix: "700",
            hint: "",
        }),
        _ => Ok(()),
    }
}

/// Checks that other users cannot replace the state file `file` (`what`, such as "The offsets
/// file"): its directory, if it exists, is not writable by group or others, or has the sticky
/// bit (as `/tmp`, where only the file's owner may replace it).
///
/// # Errors
/// [`UnsafeDir`] naming the directory.
pub fn check_file_dir(file: &Path) -> Result<(), UnsafeDir> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match mode_of(dir) {
        Ok(Some(mode)) if mode & WRITABLE_BY_OTHERS != 0 && mode & STICKY == 0 => Err(UnsafeDir {
            what: "The directory of the state file",
            path: dir.to_owned(),
            mode,
            fix: "go-w",
            hint: " or keep the file in a directory only the worker's user can write",
        }),
        _ => Ok(()),
    }
}

/// Makes every file and directory under `dir` (not `dir` itself, not following symbolic links)
/// private to the worker's user: group and other permissions are removed where present.
/// Used on the embedded log's directory, which older versions filled with 0644 files.
///
/// # Errors
/// The path that could not be read or changed, with the I/O error.
pub fn restrict_tree(dir: &Path) -> Result<(), (PathBuf, io::Error)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let entries = std::fs::read_dir(dir).map_err(|e| (dir.to_owned(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| (dir.to_owned(), e))?;
            let path = entry.path();
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                // Removed meanwhile (a temporary file).
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err((path, e)),
            };
            if meta.file_type().is_symlink() {
                continue;
            }
            let mode = meta.permissions().mode() & 0o7777;
            if mode & 0o077 != 0 {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & !0o077))
                    .map_err(|e| (path.clone(), e))?;
            }
            if meta.is_dir() {
                restrict_tree(&path)?;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn created_files_and_directories_are_private_whatever_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        create_dir_all(&nested).unwrap();
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&nested), 0o700);
        let file = nested.join("f");
        open_options()
            .create(true)
            .append(true)
            .open(&file)
            .unwrap();
        assert_eq!(mode(&file), 0o600);
        let temp = temp_file_in(&nested).unwrap();
        assert_eq!(mode(temp.path()), 0o600);
    }

    #[test]
    fn a_data_directory_others_can_write_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        chmod(dir.path(), 0o755);
        assert_eq!(check_data_dir(dir.path()), Ok(()));
        for bad in [0o777, 0o775, 0o1777, 0o703] {
            chmod(dir.path(), bad);
            let e = check_data_dir(dir.path()).unwrap_err().to_string();
            assert!(e.contains(&format!("{}", dir.path().display())), "{e}");
            assert!(e.contains(&format!("(mode {bad:04o})")), "{e}");
            assert!(
                e.contains(&format!("`chmod 700 {}`", dir.path().display())),
                "{e}"
            );
        }
        assert_eq!(check_data_dir(&dir.path().join("missing")), Ok(()));
    }

    #[test]
    fn a_state_file_may_live_in_a_sticky_directory_but_not_in_one_others_can_write() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("connect.offsets");
        chmod(dir.path(), 0o1777);
        assert_eq!(check_file_dir(&file), Ok(()));
        chmod(dir.path(), 0o755);
        assert_eq!(check_file_dir(&file), Ok(()));
        chmod(dir.path(), 0o777);
        let e = check_file_dir(&file).unwrap_err().to_string();
        assert!(
            e.contains(&format!("`chmod go-w {}`", dir.path().display())),
            "{e}"
        );
        chmod(dir.path(), 0o700);
    }

    #[test]
    fn restrict_tree_removes_group_and_other_permissions_below_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        chmod(dir.path(), 0o755);
        let sub = dir.path().join("t-0");
        std::fs::create_dir(&sub).unwrap();
        chmod(&sub, 0o755);
        let file = sub.join("00000000000000000000.log");
        std::fs::write(&file, b"x").unwrap();
        chmod(&file, 0o644);
        let outside = tempfile::NamedTempFile::new().unwrap();
        chmod(outside.path(), 0o644);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        restrict_tree(dir.path()).unwrap();
        assert_eq!(mode(&sub), 0o700);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(dir.path()), 0o755, "the directory itself is left");
        assert_eq!(mode(outside.path()), 0o644, "links are not followed");
    }
}
