//! Hot reload of connector files in `connect-rs standalone`, against the real binary on the
//! embedded log: edits (in place, by rename-and-replace, vim's rename-away save), invalid
//! edits, deleted files, files added to and removed from a watched directory, renamed
//! connectors, and `--no-watch`. Each change is observed over REST and in the bytes the
//! connectors write.

use crate::support;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use support::http::Client;
use support::rest::{start, start_args, wait_running, Running};
use support::*;

/// How long one applied change may take to show.
const CHANGE: Duration = Duration::from_secs(60);

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

/// Waits until `path` holds exactly `expected`.
#[track_caller]
fn wait_bytes(path: &Path, expected: &str) {
    wait_for(
        &format!("{} to hold {expected:?}", path.display()),
        CHANGE,
        || bytes(path) == expected.as_bytes(),
    );
}

/// A connector's configuration over REST, `None` when it does not exist.
fn config(c: &Client, name: &str) -> Option<Value> {
    let r = c.get(&format!("/connectors/{name}/config"));
    match r.status {
        200 => Some(r.json()),
        404 => None,
        other => panic!("GET /connectors/{name}/config: {other} {}", r.body),
    }
}

/// Waits until connector `name`'s configuration has `key` = `value`.
#[track_caller]
fn wait_config(c: &Client, name: &str, key: &str, value: &str) {
    wait_for(&format!("{name}'s {key} to be {value}"), CHANGE, || {
        config(c, name).is_some_and(|cfg| cfg[key] == value)
    });
}

/// Waits until connector `name` no longer exists.
#[track_caller]
fn wait_gone(c: &Client, name: &str) {
    wait_for(&format!("{name} to be deleted"), CHANGE, || {
        c.get(&format!("/connectors/{name}/status")).status == 404
    });
}

/// Waits until the log has a line containing every one of `parts`; returns that line.
#[track_caller]
fn wait_log_line(w: &Workdir, parts: &[&str]) -> String {
    let mut found = String::new();
    wait_for(&format!("a log line with {parts:?}"), CHANGE, || {
        match w
            .log()
            .lines()
            .find(|l| parts.iter().all(|p| l.contains(p)))
        {
            Some(line) => {
                found = line.to_owned();
                true
            }
            None => false,
        }
    });
    found
}

fn count(w: &Workdir, needle: &str) -> usize {
    w.log().matches(needle).count()
}

/// A file connector's properties.
fn props(name: &str, class: &str, file: &Path, topic_key: &str, topic: &str) -> String {
    format!(
        "name={name}\nconnector.class={class}\ntasks.max=1\nfile={}\n{topic_key}={topic}\n",
        file.display()
    )
}

fn sink_props(name: &str, file: &Path, topic: &str) -> String {
    props(name, "FileStreamSink", file, "topics", topic)
}

fn source_props(name: &str, file: &Path, topic: &str) -> String {
    props(name, "FileStreamSource", file, "topic", topic)
}

/// Saves `path` as many editors do: a temporary file in the same directory, renamed over it.
fn save_by_rename(path: &Path, content: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, content).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Saves `path` as vim does with `backupcopy=no`: the original renamed away to `path~`, a new
/// file written, the backup removed.
fn save_like_vim(path: &Path, content: &str) {
    let mut backup = path.as_os_str().to_owned();
    backup.push("~");
    std::fs::rename(path, &backup).unwrap();
    std::fs::write(path, content).unwrap();
    std::fs::remove_file(&backup).unwrap();
}

fn stop(mut run: Running) {
    let status = terminate(&mut run.child, Duration::from_secs(60));
    assert!(status.success(), "exit status {status}");
}

#[test]
fn a_sink_file_edited_in_place_writes_into_its_new_file_from_where_it_was() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\na2\n");
    let (out1, out2) = (w.path("out1.txt"), w.path("out2.txt"));
    let worker = w.worker("");
    let source = w.source("src", &input, "lines");
    let sink = w.sink("dst", &out1, "lines");
    let run = start(&w, &[&worker, &source, &sink]);
    let c = run.client;
    wait_bytes(&out1, "a1\na2\n");
    assert!(w.log().contains("Watching connector files for changes"));

    // In place: the same inode, truncated and rewritten.
    std::fs::write(&sink, sink_props("dst", &out2, "lines")).unwrap();
    wait_config(&c, "dst", "file", &out2.display().to_string());
    let line = wait_log_line(&w, &["Connector file changed: applied.", "connector=dst"]);
    assert!(line.contains(" INFO "), "{line}");
    assert!(line.contains(&sink.display().to_string()), "{line}");
    wait_running(&c, "dst", CHANGE);

    // The task restarted with the new file and the committed offsets: only new records.
    append(&input, "b1\nb2\n");
    wait_bytes(&out2, "b1\nb2\n");
    assert_eq!(bytes(&out1), b"a1\na2\n");
    assert_eq!(count(&w, "Connector file changed"), 1, "{}", w.log());
    stop(run);
}

#[test]
fn a_source_file_saved_by_rename_or_like_vim_moves_to_its_new_topic_keeping_its_offsets() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\n");
    let outs = [w.path("out1.txt"), w.path("out2.txt"), w.path("out3.txt")];
    let worker = w.worker("");
    let source = w.source("src", &input, "t1");
    let sinks: Vec<_> = (1..=3)
        .map(|i| w.sink(&format!("s{i}"), &outs[i - 1], &format!("t{i}")))
        .collect();
    let mut files = vec![worker.as_path(), source.as_path()];
    files.extend(sinks.iter().map(|s| s.as_path()));
    let run = start(&w, &files);
    let c = run.client;
    wait_bytes(&outs[0], "a1\n");

    // A temporary file renamed over the original.
    save_by_rename(&source, &source_props("src", &input, "t2"));
    wait_config(&c, "src", "topic", "t2");
    wait_log_line(&w, &["Connector file changed: applied.", "connector=src"]);
    wait_running(&c, "src", CHANGE);
    append(&input, "b1\n");
    wait_bytes(&outs[1], "b1\n");

    // The original renamed away, a new file written in its place.
    save_like_vim(&source, &source_props("src", &input, "t3"));
    wait_config(&c, "src", "topic", "t3");
    wait_running(&c, "src", CHANGE);
    append(&input, "c1\n");
    wait_bytes(&outs[2], "c1\n");

    // The source resumed from its offsets each time; each save was applied once.
    assert_eq!(bytes(&outs[0]), b"a1\n");
    assert_eq!(bytes(&outs[1]), b"b1\n");
    assert_eq!(
        count(&w, "Connector file changed: applied."),
        2,
        "{}",
        w.log()
    );
    // The editor's temporary and backup files were never read.
    assert!(!w.log().contains("src.properties~"), "{}", w.log());
    assert!(!w.log().contains("src.tmp"), "{}", w.log());
    stop(run);
}

#[test]
fn an_invalid_edit_is_logged_and_the_running_configuration_kept_until_it_is_fixed() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\n");
    let (out, out2) = (w.path("out.txt"), w.path("out2.txt"));
    let worker = w.worker("");
    let source = w.source("src", &input, "lines");
    let sink = w.sink("dst", &out, "lines");
    let run = start(&w, &[&worker, &source, &sink]);
    let c = run.client;
    wait_bytes(&out, "a1\n");

    let bad = sink_props("dst", &out2, "lines").replace("tasks.max=1", "tasks.max=many");
    std::fs::write(&sink, bad).unwrap();
    let line = wait_log_line(&w, &["ERROR", "Connector file", "is invalid"]);
    assert!(line.contains(&sink.display().to_string()), "{line}");
    assert!(line.contains("keeps its running configuration"), "{line}");
    let log = w.log();
    assert!(
        log.contains("line 3: tasks.max: Invalid value many for configuration tasks.max"),
        "{log}"
    );

    // Still the old configuration, still running, still writing where it did.
    assert_eq!(
        config(&c, "dst").unwrap()["file"],
        out.display().to_string()
    );
    assert_eq!(config(&c, "dst").unwrap()["tasks.max"], "1");
    wait_running(&c, "dst", CHANGE);
    append(&input, "b1\n");
    wait_bytes(&out, "a1\nb1\n");
    assert!(!out2.exists());

    // Fixed: applied.
    std::fs::write(&sink, sink_props("dst", &out2, "lines")).unwrap();
    wait_config(&c, "dst", "file", &out2.display().to_string());
    append(&input, "c1\n");
    wait_bytes(&out2, "c1\n");
    assert_eq!(count(&w, "is invalid"), 1, "{}", w.log());
    stop(run);
}

#[test]
fn a_deleted_file_deletes_its_connector() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\n");
    let (keep_out, gone_out) = (w.path("keep.txt"), w.path("gone.txt"));
    let worker = w.worker("");
    let source = w.source("src", &input, "lines");
    let keep = w.sink("keep", &keep_out, "lines");
    let gone = w.sink("gone", &gone_out, "lines");
    let run = start(&w, &[&worker, &source, &keep, &gone]);
    let c = run.client;
    wait_bytes(&keep_out, "a1\n");
    wait_bytes(&gone_out, "a1\n");

    std::fs::remove_file(&gone).unwrap();
    wait_gone(&c, "gone");
    let line = wait_log_line(
        &w,
        &[
            "Connector file removed: connector deleted.",
            "connector=gone",
        ],
    );
    assert!(line.contains(&gone.display().to_string()), "{line}");

    // The other sink goes on; the deleted one wrote nothing more.
    append(&input, "b1\n");
    wait_bytes(&keep_out, "a1\nb1\n");
    assert_eq!(bytes(&gone_out), b"a1\n");
    let listed = c.get("/connectors").json();
    assert_eq!(listed, json!(["keep", "src"]));
    stop(run);
}

#[test]
fn a_watched_directory_creates_renames_and_deletes_connectors_and_ignores_editor_files() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\n");
    let out = w.path("out.txt");
    let worker = w.worker("");
    let conf = w.path("conf.d");
    w.write(
        "conf.d/src.properties",
        source_props("src", &input, "lines"),
    );
    w.write("conf.d/sink.conf", "name=never\n");
    let run = start_args(
        &w,
        &[
            "standalone".to_owned(),
            worker.display().to_string(),
            conf.display().to_string(),
        ],
    );
    let c = run.client;
    wait_running(&c, "src", CHANGE);
    let line = wait_log_line(&w, &["WARN", "not read: sink.conf"]);
    assert!(line.contains(&conf.display().to_string()), "{line}");

    // Editor leftovers and other files are not connector files.
    let junk = sink_props("junk", &w.path("junk.txt"), "lines");
    for name in [
        ".sink.properties.swp",
        "sink.properties~",
        "#sink.properties#",
        "notes.txt",
    ] {
        w.write(&format!("conf.d/{name}"), &junk);
    }
    // Added (by rename from a temporary name).
    save_by_rename(
        &conf.join("sink.properties"),
        &sink_props("sink", &out, "lines"),
    );
    wait_bytes(&out, "a1\n");
    let line = wait_log_line(
        &w,
        &[
            "Connector file added: connector sink created.",
            "connector=sink",
        ],
    );
    assert!(line.contains("sink.properties"), "{line}");
    assert_eq!(c.get("/connectors").json(), json!(["sink", "src"]));

    // The file moved: the same connector, now defined by the new file.
    let moved = conf.join("moved.properties");
    std::fs::rename(conf.join("sink.properties"), &moved).unwrap();
    let line = wait_log_line(
        &w,
        &["Connector file added", "moved.properties", "until now"],
    );
    assert!(line.contains("connector sink (defined by"), "{line}");
    wait_running(&c, "sink", CHANGE);
    assert!(!w.log().contains("Connector file removed"), "{}", w.log());

    // Renamed in the file: the old connector deleted, the new one created.
    std::fs::write(&moved, sink_props("sink2", &out, "lines")).unwrap();
    wait_running(&c, "sink2", CHANGE);
    wait_gone(&c, "sink");
    wait_log_line(
        &w,
        &["name changed from sink to sink2", "connector sink deleted"],
    );

    // Removed.
    std::fs::remove_file(&moved).unwrap();
    wait_gone(&c, "sink2");
    assert_eq!(c.get("/connectors").json(), json!(["src"]));
    assert!(!w.log().contains("junk"), "{}", w.log());
    stop(run);
}

#[test]
fn a_watched_directory_moved_away_and_created_again_is_watched_again() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\n");
    let out = w.path("out.txt");
    let worker = w.worker("");
    let source = w.source("src", &input, "lines");
    let conf = w.path("conf.d");
    w.write("conf.d/sink.properties", sink_props("sink", &out, "lines"));
    let run = start_args(
        &w,
        &[
            "standalone".to_owned(),
            worker.display().to_string(),
            source.display().to_string(),
            conf.display().to_string(),
        ],
    );
    let c = run.client;
    wait_bytes(&out, "a1\n");

    // Moved away: its connector is deleted, and the log says that watching it stopped.
    let moved = w.path("conf.old");
    std::fs::rename(&conf, &moved).unwrap();
    wait_gone(&c, "sink");
    wait_log_line(
        &w,
        &["WARN", &conf.display().to_string(), "watching it stopped"],
    );
    // A change in the moved directory is not applied.
    std::fs::write(
        moved.join("other.properties"),
        sink_props("other", &out, "lines"),
    )
    .unwrap();

    // Created again with a connector file: read and watched again.
    let out2 = w.path("out2.txt");
    w.write("conf.d/back.properties", sink_props("back", &out2, "lines"));
    wait_bytes(&out2, "a1\n");
    wait_log_line(&w, &[&conf.display().to_string(), "exists again"]);
    let out3 = w.path("out3.txt");
    std::fs::write(
        conf.join("back.properties"),
        sink_props("back", &out3, "lines"),
    )
    .unwrap();
    wait_config(&c, "back", "file", &out3.display().to_string());
    append(&input, "b1\n");
    wait_bytes(&out3, "b1\n");
    assert_eq!(c.get("/connectors").json(), json!(["back", "src"]));

    // Removed (not moved), then created again by a rename: seen again too.
    std::fs::remove_dir_all(&conf).unwrap();
    wait_gone(&c, "back");
    let nested = w.path("deep/conf.d");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::rename(&nested, &conf).unwrap();
    std::fs::write(
        conf.join("again.properties"),
        sink_props("again", &w.path("out4.txt"), "lines"),
    )
    .unwrap();
    wait_running(&c, "again", CHANGE);
    stop(run);
}

#[test]
fn connectors_created_over_rest_are_never_replaced_by_a_file() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a1\n");
    let (rest_out, file_out) = (w.path("rest.txt"), w.path("file.txt"));
    let worker = w.worker("");
    std::fs::create_dir(w.path("conf.d")).unwrap();
    let run = start_args(
        &w,
        &[
            "standalone".to_owned(),
            worker.display().to_string(),
            w.path("conf.d").display().to_string(),
        ],
    );
    let c = run.client;
    let r = c.put(
        "/connectors/mine/config",
        &json!({
            "connector.class": "FileStreamSink",
            "tasks.max": "1",
            "file": rest_out.display().to_string(),
            "topics": "lines",
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    w.write(
        "conf.d/src.properties",
        source_props("src", &input, "lines"),
    );
    wait_bytes(&rest_out, "a1\n");

    // A file naming the REST connector is refused, with the reason.
    w.write(
        "conf.d/mine.properties",
        sink_props("mine", &file_out, "lines"),
    );
    let line = wait_log_line(&w, &["ERROR", "mine.properties", "exists already"]);
    assert!(line.contains("created over REST"), "{line}");
    assert_eq!(
        config(&c, "mine").unwrap()["file"],
        rest_out.display().to_string()
    );
    // Removing that file leaves the REST connector alone: wait for the removal to be
    // processed by a later change that is applied.
    std::fs::remove_file(w.path("conf.d/mine.properties")).unwrap();
    std::fs::remove_file(w.path("conf.d/src.properties")).unwrap();
    wait_gone(&c, "src");
    assert_eq!(
        config(&c, "mine").unwrap()["file"],
        rest_out.display().to_string()
    );
    stop(run);
}

/// Two workers run the same connector file, one with `--no-watch`: once the watching worker
/// has applied an edit, the other, which had the same events to see, still runs the old
/// configuration.
#[test]
fn no_watch_leaves_an_edited_file_unapplied() {
    let (watching, still) = (Workdir::new(), Workdir::new());
    let input = watching.write("in.txt", "");
    let shared = watching.source("src", &input, "t1");
    let worker_w = watching.worker("");
    let worker_s = still.worker("");
    let run_w = start(&watching, &[&worker_w, &shared]);
    let run_s = start_args(
        &still,
        &[
            "standalone".to_owned(),
            "--no-watch".to_owned(),
            worker_s.display().to_string(),
            shared.display().to_string(),
        ],
    );
    assert!(still
        .log()
        .contains("Connector files are not watched (--no-watch)."));
    wait_running(&run_s.client, "src", CHANGE);
    wait_running(&run_w.client, "src", CHANGE);

    std::fs::write(&shared, source_props("src", &input, "t2")).unwrap();
    wait_config(&run_w.client, "src", "topic", "t2");
    assert_eq!(config(&run_s.client, "src").unwrap()["topic"], "t1");
    assert!(
        !still.log().contains("Connector file changed"),
        "{}",
        still.log()
    );
    stop(run_w);
    stop(run_s);
}

/// With `--distributed` the files (a directory too) are submitted once, and the log says they
/// are not watched.
#[test]
fn distributed_reads_the_connector_files_once_and_says_so() {
    let w = Workdir::new();
    let input = w.write("in.txt", "");
    let worker = w.worker(
        "group.id=connect-cluster\n\
         config.storage.topic=connect-configs\n\
         offset.storage.topic=connect-offsets\n\
         status.storage.topic=connect-status",
    );
    let conf = w.path("conf.d");
    w.write(
        "conf.d/src.properties",
        source_props("src", &input, "lines"),
    );
    let run = start_args(
        &w,
        &[
            "standalone".to_owned(),
            "--distributed".to_owned(),
            worker.display().to_string(),
            conf.display().to_string(),
        ],
    );
    wait_running(&run.client, "src", CHANGE);
    let log = w.log();
    assert!(
        log.contains("with --distributed they are not watched for changes"),
        "{log}"
    );
    assert!(!log.contains("Watching connector files"), "{log}");
    stop(run);
}
