//! FileStreamSink's exactly-once position: the output file's length when offsets were
//! committed, stored with every partition's offset, and how a restarting task restores the file
//! to it.
//!
//! The stored text is `file-length=<bytes>;path-hash=<16 hex digits>;file-id=<inode>`: the
//! length, an FNV-1a hash of the `file` setting and the file's inode, so a position committed
//! for another file (another setting, a file replaced or rotated since, the same path on another
//! machine) is never applied to this one. It is short, far below Kafka's
//! `offset.metadata.max.bytes`.

use connect_api::SinkPositions;

/// One committed position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilePosition {
    /// The file's length, in bytes, with all output up to the committed offsets durable.
    pub length: u64,
    /// FNV-1a hash of the `file` setting.
    pub path_hash: u64,
    /// The file's identity on its file system (the inode; 0 where there is none).
    pub file_id: u64,
}

impl FilePosition {
    /// The position of `path`, the file `file_id`, at `length`.
    pub fn new(path: &str, file_id: u64, length: u64) -> Self {
        Self {
            length,
            path_hash: path_hash(path),
            file_id,
        }
    }

    /// The stored text.
    pub fn encode(&self) -> String {
        format!(
            "file-length={};path-hash={:016x};file-id={}",
            self.length, self.path_hash, self.file_id
        )
    }

    /// Parses a stored text; `None` when it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split(';');
        let length = parts.next()?.strip_prefix("file-length=")?.parse().ok()?;
        let hash = parts.next()?.strip_prefix("path-hash=")?;
        let path_hash = u64::from_str_radix(hash, 16).ok()?;
        let file_id = parts.next()?.strip_prefix("file-id=")?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(Self {
            length,
            path_hash,
            file_id,
        })
    }
}

/// The identity of an open file: its inode on Unix, 0 elsewhere.
pub fn file_id(metadata: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::ino(metadata)
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        0
    }
}

/// FNV-1a (64 bit) of the path as configured: stable across builds and platforms.
fn path_hash(path: &str) -> u64 {
    path.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Where to restore `path` to, from the positions committed with its partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestorePoint {
    /// The committed length to restore the file to: the largest one, which is the last commit
    /// (one task appends alone, so the file only grows; an older position of a partition that
    /// was not assigned for a while is smaller).
    pub length: Option<u64>,
    /// Positions that were left out, with why (for a warning).
    pub ignored: Vec<String>,
    /// Whether the positions disagree (partitions last committed at different times).
    pub differing: bool,
}

/// The restore point of `path` (the file `file_id`) from `positions`; positions of other files
/// or in another format are ignored and reported.
pub fn restore_point(path: &str, file_id: u64, positions: &SinkPositions) -> RestorePoint {
    let hash = path_hash(path);
    let mut lengths = Vec::new();
    let mut ignored = Vec::new();
    for (tp, text) in positions {
        match FilePosition::parse(text) {
            Some(p) if p.path_hash == hash && p.file_id == file_id => lengths.push(p.length),
            Some(p) if p.path_hash == hash => ignored.push(format!(
                "{}-{}: committed for file id {} at this path, which is now file id {file_id} \
                 (replaced, rotated or on another machine) ({text})",
                tp.topic, tp.partition, p.file_id
            )),
            Some(_) => ignored.push(format!(
                "{}-{}: committed for another file ({text})",
                tp.topic, tp.partition
            )),
            None => ignored.push(format!(
                "{}-{}: not a FileStreamSink position ({text:?})",
                tp.topic, tp.partition
            )),
        }
    }
    let length = lengths.iter().copied().max();
    RestorePoint {
        length,
        ignored,
        differing: lengths.iter().any(|&l| Some(l) != length),
    }
}

/// What to do with a file of `current` bytes to restore it to the committed `target` length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// The file is at the committed length.
    Keep,
    /// Cut the file to the committed length: the bytes after it were written after the last
    /// commit, and their records are delivered again.
    Truncate {
        /// The committed length.
        to: u64,
    },
    /// The file is shorter than committed: someone else cut or replaced it; output committed
    /// before cannot be restored.
    Shorter {
        /// The committed length.
        committed: u64,
    },
}

/// The restore action for a file of `current` bytes and committed length `target`.
pub fn restore(current: u64, target: u64) -> Restore {
    match current.cmp(&target) {
        std::cmp::Ordering::Equal => Restore::Keep,
        std::cmp::Ordering::Greater => Restore::Truncate { to: target },
        std::cmp::Ordering::Less => Restore::Shorter { committed: target },
    }
}

#[cfg(test)]
mod tests {
    use connect_api::TopicPartition;

    use super::*;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition {
            topic: "t".into(),
            partition: p,
        }
    }

    #[test]
    fn positions_round_trip_and_refuse_other_text() {
        let p = FilePosition::new("/data/out.txt", 77, 1234);
        let text = p.encode();
        assert!(text.starts_with("file-length=1234;path-hash="), "{text}");
        assert!(text.ends_with(";file-id=77"), "{text}");
        assert_eq!(FilePosition::parse(&text), Some(p));
        assert_eq!(FilePosition::parse(""), None);
        assert_eq!(
            FilePosition::parse("file-length=x;path-hash=00;file-id=1"),
            None
        );
        assert_eq!(FilePosition::parse("length=1;path-hash=00;file-id=1"), None);
        assert_eq!(FilePosition::parse("file-length=1;path-hash=00"), None);
        assert_eq!(
            FilePosition::parse("file-length=1;path-hash=00;file-id=1;x"),
            None
        );
        assert_ne!(path_hash("/a"), path_hash("/b"));
        // Known FNV-1a 64 value: stable across builds.
        assert_eq!(path_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn the_largest_position_of_this_file_wins_and_others_are_reported() {
        let mine = |l| FilePosition::new("/out", 5, l).encode();
        let positions = SinkPositions::from([
            (tp(0), mine(100)),
            (tp(1), mine(40)),
            (tp(2), FilePosition::new("/elsewhere", 5, 999).encode()),
            (tp(3), "something else".into()),
            (tp(4), FilePosition::new("/out", 6, 999).encode()),
        ]);
        let r = restore_point("/out", 5, &positions);
        assert_eq!(r.length, Some(100));
        assert!(r.differing);
        assert_eq!(r.ignored.len(), 3, "{:?}", r.ignored);
        assert!(r.ignored[0].contains("another file"), "{:?}", r.ignored);
        assert!(
            r.ignored[1].contains("not a FileStreamSink position"),
            "{:?}",
            r.ignored
        );
        assert!(
            r.ignored[2].contains("replaced, rotated"),
            "{:?}",
            r.ignored
        );
        let same = SinkPositions::from([(tp(0), mine(7)), (tp(1), mine(7))]);
        assert_eq!(
            restore_point("/out", 5, &same),
            RestorePoint {
                length: Some(7),
                ignored: vec![],
                differing: false
            }
        );
        assert_eq!(restore_point("/out", 5, &SinkPositions::new()).length, None);
    }

    #[test]
    fn restore_cuts_back_only_to_the_committed_length() {
        assert_eq!(restore(10, 10), Restore::Keep);
        assert_eq!(restore(15, 10), Restore::Truncate { to: 10 });
        assert_eq!(restore(5, 10), Restore::Shorter { committed: 10 });
    }
}
