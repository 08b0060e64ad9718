//! Messages a person can act on (issue 7, item 4), through the real binary: "did you mean",
//! each OS error once, "is a file, not a directory", binary files as configuration, NO_COLOR,
//! the task's final throughput line, and conversion failures that name the record.

use crate::support;

use std::path::Path;
use std::process::Command;

use support::*;

#[test]
fn misspellings_get_a_did_you_mean() {
    let w = Workdir::new();
    let worker = w.worker("value.convertor.schemas.enable=false\nofset.flush.interval.ms=100");
    let class = w.write(
        "c.properties",
        "name=x\nconnector.class=FileStreamSorce\ntopic=t\n",
    );
    let (code, err) = w.run_checked(&[&worker, &class]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("which name matches FileStreamSorce. Did you mean 'FileStreamSource'?"),
        "{err}"
    );
    assert!(
        err.contains("'value.convertor.schemas.enable' was supplied but isn't a known config. Did you mean 'value.converter.schemas.enable'?"),
        "{err}"
    );
    assert!(
        err.contains("Did you mean 'offset.flush.interval.ms'?"),
        "{err}"
    );

    let sink = w.write(
        "s.properties",
        "name=s\nconnector.class=FileStreamSink\ntopic=t\nfile=out.txt\nvalue.converter=Jsn\n",
    );
    let (code, err) = w.run_checked(&[&worker, &sink]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("The configuration 'topic' was supplied but isn't a known config. Did you mean 'topics'?"),
        "{err}"
    );
    assert!(
        err.contains("Must configure one of topics or topics.regex"),
        "{err}"
    );

    let conv = w.write(
        "v.properties",
        "name=v\nconnector.class=FileStreamSink\ntopics=t\nfile=out.txt\nvalue.converter=Jsn\n",
    );
    let (code, err) = w.run_checked(&[&worker, &conv]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("matches Jsn. Did you mean 'Json'?"), "{err}");
}

#[test]
fn each_os_error_is_printed_once() {
    let w = Workdir::new();
    let worker = w.worker("");
    std::fs::create_dir_all(w.path("a-dir")).unwrap();
    let cases: [&[&Path]; 3] = [
        &[&w.path("no-worker.properties")],
        &[&worker, &w.path("no-connector.properties")],
        &[&w.path("a-dir")],
    ];
    for files in cases {
        let (code, err) = w.run_checked(files);
        assert_ne!(code, 0, "{err}");
        assert_eq!(err.matches("(os error ").count(), 1, "{err}");
        let reason = if err.contains("(os error 2)") {
            "No such file or directory"
        } else {
            "Is a directory"
        };
        assert_eq!(err.matches(reason).count(), 1, "{err}");
    }
    // A directory among the connector files stands for the connector files in it.
    let (code, err) = w.run_checked(&[&worker, &w.path("a-dir")]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("holds no connector files"), "{err}");
}

#[test]
fn a_file_where_a_directory_is_expected_is_named() {
    let w = Workdir::new();
    let file = w.write("not-a-dir", "x");
    let worker = w.write(
        "worker.properties",
        format!(
            "key.converter=StringConverter\nvalue.converter=StringConverter\n\
             listeners=http://127.0.0.1:0\nembedded.log.dir={}\n",
            file.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker]);
    assert_eq!(code, 2, "{err}");
    let expected = format!("{} is a file, not a directory", file.display());
    assert!(err.contains(&expected), "{err}");
    assert!(!err.contains("File exists"), "{err}");

    let out = w
        .command(&["topics", "--worker", &worker.display().to_string(), "list"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains(&expected), "{}", stderr(&out));

    // The offsets file below a file.
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}/offsets.json",
        file.display()
    ));
    let (code, err) = w.run_checked(&[&worker]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&expected), "{err}");
    assert!(!err.contains("Not a directory"), "{err}");
}

/// `n` bytes of deterministic noise (xorshift), as a wrong file given by mistake.
fn noise(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[3]
        })
        .collect()
}

#[test]
fn a_binary_file_as_configuration_is_one_short_error() {
    let w = Workdir::new();
    let worker = w.worker("");
    let garbage = w.write("garbage.properties", noise(4096));
    let (code, err) = w.run_checked(&[&worker, &garbage]);
    assert_eq!(code, 3, "{err}");
    assert!(err.lines().count() <= 4, "{err}");
    assert!(
        err.contains("This is not a configuration file: it contains binary data"),
        "{err}"
    );
    assert!(err.contains("garbage.properties"), "{err}");
    // As a worker file too.
    let (code, err) = w.run_checked(&[&garbage]);
    assert_eq!(code, 2, "{err}");
    assert!(err.lines().count() <= 4, "{err}");

    // A text file of the wrong kind: a few warnings, then a count.
    let mut text = String::from("name=x\nconnector.class=FileStreamSink\ntopics=t\n");
    for i in 0..50 {
        text.push_str(&format!("unrelated.setting.{i}=1\n"));
    }
    let wrong = w.write("wrong.properties", text);
    let (code, err) = w.run_checked(&[&worker, &wrong]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("isn't a known config").count(), 10, "{err}");
    assert!(err.contains("... and 40 more warnings about"), "{err}");
}

#[test]
fn no_color_is_honoured_on_a_terminal_and_files_get_no_escapes() {
    let w = Workdir::new();
    let worker = w.worker("");
    // Logs to a file: never colours.
    let (code, err) = w.run_checked(&[&worker]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");

    // On a terminal: util-linux `script` (Debian's essential bsdutils) gives the process a
    // pseudo-terminal. Without it the test fails; it never skips.
    Command::new("script")
        .arg("--version")
        .output()
        .expect("this test needs util-linux `script` (Debian package bsdutils)");
    let line = format!(
        "{} standalone --exit-when-idle=300ms {}",
        binary().display(),
        worker.display()
    );
    let on_tty = |no_color: Option<&str>| {
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &line, "/dev/null"])
            .env_remove("RUST_LOG")
            .env_remove("NO_COLOR")
            .current_dir(w.dir.path());
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        let out = cmd.output().expect("run script");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let coloured = on_tty(None);
    assert!(coloured.contains("Worker stopped"), "{coloured}");
    assert!(
        coloured.contains("\u{1b}["),
        "a terminal gets colours: {coloured:?}"
    );
    let plain = on_tty(Some("1"));
    assert!(plain.contains("Worker stopped"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "NO_COLOR=1: {plain:?}");
}

#[test]
fn each_task_ends_with_records_bytes_and_rate() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", numbered_lines(0, 1000, WIDTH));
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &w.path("out.txt"), "t");
    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 0, "{err}");
    // Values are the lines without their newline: 1000 × 99 bytes.
    for (task, verb) in [
        ("connector=src task=0", "produced"),
        ("connector=dst task=0", "put"),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(task) && l.contains("Task stopped: "))
            .unwrap_or_else(|| panic!("no final line for {task}:\n{err}"));
        assert!(
            line.contains(&format!("Task stopped: {verb} 1000 records, 99.0 KB in ")),
            "{line}"
        );
        assert!(line.contains(" records/s)"), "{line}");
    }
}

#[test]
fn a_conversion_failure_names_the_record() {
    let w = Workdir::new();
    let worker = w.worker("");
    // Sink side: text read back as JSON fails at the first record.
    let input = w.write("in.txt", "not json\n");
    let source = w.source("src", &input, "t");
    let sink = w.write(
        "dst.properties",
        format!(
            "name=dst\nconnector.class=FileStreamSink\ntopics=t\nfile={}\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n",
            w.path("out.txt").display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(
            "Tolerance exceeded in error handler: stage VALUE_CONVERTER with class \
             'org.apache.kafka.connect.json.JsonConverter' failed for topic 't' partition 0 \
             offset 0: "
        ),
        "{err}"
    );

    // Source side: a string value through IntegerConverter.
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "forty-two\n");
    let source = w.write(
        "src.properties",
        format!(
            "name=src\nconnector.class=FileStreamSource\ntopic=numbers\nfile={}\n\
             value.converter=org.apache.kafka.connect.converters.IntegerConverter\n",
            input.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 4, "{err}");
    let filename = serde_json::to_string(&input.display().to_string()).unwrap();
    assert!(
        err.contains(&format!(
            "Tolerance exceeded in error handler: stage VALUE_CONVERTER with class \
             'org.apache.kafka.connect.converters.IntegerConverter' failed for topic 'numbers', \
             source partition {{\"filename\":{filename}}}, source offset {{\"position\":10}}: "
        )),
        "{err}"
    );
}

/// A converter setting's error (`value.converter.schemas.enable=maybe`) is reported once, on
/// the setting's own line and key, in a worker file and in a connector file.
#[test]
fn a_converter_setting_error_names_its_own_line_once() {
    let w = Workdir::new();
    let worker = w.write(
        "worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             listeners=http://127.0.0.1:0\n\
             embedded.log.dir={}\n\
             value.converter.schemas.enable=maybe\n",
            w.path("data").display()
        ),
    );
    let expected = "value.converter.schemas.enable: Invalid value maybe for configuration \
                    value.converter.schemas.enable: Expected value to be either true or false";
    let source = w.source("src", &w.write("in.txt", "a\n"), "t");
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("line 5: {expected}")), "{err}");
    assert_eq!(err.matches("Invalid value").count(), 1, "{err}");
    let out = w.run_to_exit(&[
        "validate",
        "--worker",
        worker.to_str().unwrap(),
        source.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("line 5: {expected}")), "{err}");
    assert_eq!(err.matches("Invalid value").count(), 1, "{err}");

    let worker = w.worker("");
    let connector = w.write(
        "c.properties",
        "name=c\nconnector.class=FileStreamSource\ntopic=t\n\
         value.converter=org.apache.kafka.connect.json.JsonConverter\n\
         value.converter.schemas.enable=maybe\n",
    );
    let (code, err) = w.run_checked(&[&worker, &connector]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!("{}:5: {expected}", connector.display())),
        "{err}"
    );
    assert_eq!(err.matches("Invalid value").count(), 1, "{err}");
}

/// The shortest of two runs of `connect-rs ARGS` in `w`, checked to succeed.
fn best_time(w: &Workdir, args: &[String]) -> std::time::Duration {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (0..2)
        .map(|_| {
            let start = std::time::Instant::now();
            let out = w.run_to_exit(&args);
            let took = start.elapsed();
            assert!(out.status.success(), "{}", stderr(&out));
            took
        })
        .min()
        .unwrap_or_default()
}

/// A file of many unknown keys (a wrong file given as configuration) loads in time linear in
/// its size: ten times the keys may not take more than twenty times as long (the same test
/// measures both), for a worker file (10 warnings and a count) and a connector file
/// (`validate` lists every warning).
#[test]
fn files_of_many_unknown_keys_load_in_linear_time() {
    let w = Workdir::new();
    let unknown = |n: usize| -> String {
        (0..n)
            .map(|i| format!("unknown.setting.number.{i}=value {i}\n"))
            .collect()
    };
    let source = w.source("src", &w.write("in.txt", "a\n"), "t");
    let base = std::fs::read_to_string(w.worker("")).unwrap();
    let small = w.write("small.properties", base.clone() + &unknown(20_000));
    let big = w.write("big.properties", base + &unknown(200_000));
    let run = |worker: &Path| {
        vec![
            "validate".to_owned(),
            "--worker".to_owned(),
            worker.display().to_string(),
            source.display().to_string(),
        ]
    };
    let args = run(&big);
    let out = w.run_to_exit(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("isn't a known config").count(), 10, "{err}");
    assert!(err.contains("... and 199990 more warnings about"), "{err}");
    let t_small = best_time(&w, &run(&small));
    let t_big = best_time(&w, &args);
    assert!(
        t_big <= t_small * 20,
        "200,000 unknown worker keys took {t_big:?}, 20,000 took {t_small:?}"
    );

    let worker = w.worker("");
    let small = w.write(
        "c-small.properties",
        std::fs::read_to_string(&source).unwrap() + &unknown(10_000),
    );
    let big = w.write(
        "c-big.properties",
        std::fs::read_to_string(&source).unwrap() + &unknown(100_000),
    );
    let check = |file: &Path| {
        vec![
            "validate".to_owned(),
            "--worker".to_owned(),
            worker.display().to_string(),
            file.display().to_string(),
        ]
    };
    let t_small = best_time(&w, &check(&small));
    let t_big = best_time(&w, &check(&big));
    assert!(
        t_big <= t_small * 20,
        "100,000 unknown connector keys took {t_big:?}, 10,000 took {t_small:?}"
    );
}

/// An unknown transform type lists every transform once (a nested class such as
/// `InsertField$Value` by its class name, never as a bare `Key` or `Value`) and suggests only a
/// close name.
#[test]
fn an_unknown_transform_type_lists_each_class_once_and_suggests_only_close_names() {
    let w = Workdir::new();
    let worker = w.worker("");
    let problem = |type_name: &str| -> String {
        let c = w.write(
            "c.properties",
            format!(
                "name=c\nconnector.class=FileStreamSource\ntopic=t\ntransforms=a\n\
                 transforms.a.type={type_name}\n"
            ),
        );
        let out = w.run_to_exit(&[
            "validate",
            "--worker",
            worker.to_str().unwrap(),
            c.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let report = stdout(&out);
        let prefix = format!("{}:5: transforms.a.type: ", c.display());
        report
            .lines()
            .find_map(|l| l.trim().strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no problem on line 5:\n{report}"))
            .to_owned()
    };

    let message = problem("Nope");
    let (head, listed) = message
        .split_once(" Available: ")
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(
        head,
        "Invalid value Nope for configuration transforms.a.type: Class Nope could not be found. \
         Failed to find any class that implements Transformation and which name matches Nope."
    );
    let listed: Vec<&str> = listed.split(", ").collect();
    let mut classes: Vec<&str> = listed
        .iter()
        .map(|l| {
            l.strip_suffix(')')
                .and_then(|l| l.split_once(" ("))
                .map_or(*l, |(_, class)| class)
        })
        .collect();
    assert!(
        classes
            .iter()
            .all(|c| c.starts_with("org.apache.kafka.connect.transforms.")),
        "{listed:?}"
    );
    let count = classes.len();
    classes.sort_unstable();
    classes.dedup();
    assert_eq!(classes.len(), count, "a class is listed twice: {listed:?}");
    for class in ["InsertField$Key", "InsertField$Value", "Cast$Value"] {
        let full = format!("org.apache.kafka.connect.transforms.{class}");
        assert!(listed.contains(&full.as_str()), "{full}: {listed:?}");
    }
    assert!(listed.contains(&"Filter (org.apache.kafka.connect.transforms.Filter)"));
    assert!(
        !listed
            .iter()
            .any(|l| l.starts_with("Key ") || l.starts_with("Value ")),
        "{listed:?}"
    );

    assert!(problem("Filtr").contains("matches Filtr. Did you mean 'Filter'? Available: "));
    assert!(problem("InsertField$Value").contains(
        "matches InsertField$Value. Did you mean \
         'org.apache.kafka.connect.transforms.InsertField$Value'? Available: "
    ));
}
