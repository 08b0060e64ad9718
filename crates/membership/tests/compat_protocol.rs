//! Differential test of protocol.rs against Apache Kafka Connect's own ConnectProtocol and
//! IncrementalCooperativeConnectProtocol (connect-runtime jar): the same metadata and
//! assignments serialize to the same bytes, and each side reads the other's bytes.

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use connect_membership::protocol::{
    Assignment, ConnectorTasks, TaskId, WorkItems, WorkerMetadata, CONFIG_MISMATCH, NO_ERROR,
};

/// Compiles the Java oracle once; returns its class path.
fn oracle() -> String {
    let libs = support::connect_libs();
    let classes = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("connect-protocol-oracle");
    std::fs::create_dir_all(&classes).expect("classes dir");
    let source =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/compat/ConnectProtocolOracle.java");
    let out = Command::new(support::java_tool("javac"))
        .arg("-nowarn")
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg("-d")
        .arg(&classes)
        .arg(&source)
        .output()
        .expect("run javac (install a JDK 17+)");
    assert!(
        out.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    format!("{}/*:{}", libs.display(), classes.display())
}

fn java(cp: &str, mode: &str, input: &str) -> String {
    let mut child = Command::new(support::java_tool("java"))
        .arg("-cp")
        .arg(cp)
        .arg("ConnectProtocolOracle")
        .arg(mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run java");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("java output");
    assert!(
        out.status.success(),
        "java oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn entry(c: &str, tasks: &[i32]) -> ConnectorTasks {
    ConnectorTasks {
        connector: c.into(),
        tasks: tasks.to_vec(),
    }
}

fn assignment(version: i16, error: i16, offset: i64) -> Assignment {
    Assignment {
        version,
        error,
        leader: "leader-1".into(),
        leader_url: "http://l:8083/".into(),
        config_offset: offset,
        assigned: Some(vec![]),
        revoked: (version > 0).then(Vec::new),
        delay: 0,
    }
}

/// The cases the oracle serializes, built in Rust (entries in Kafka Connect's order:
/// connector instances first, then tasks in list order).
fn cases() -> BTreeMap<&'static str, Vec<u8>> {
    let url = "http://w1:8083/".to_string();
    let md0 = WorkerMetadata {
        version: 0,
        url: url.clone(),
        config_offset: 42,
        allocation: None,
    };
    let md1 = WorkerMetadata {
        version: 1,
        ..md0.clone()
    };
    let mut current = assignment(2, NO_ERROR, 41);
    current.assigned = Some(vec![entry("a", &[-1, 0, 2])]);
    let md2 = WorkerMetadata {
        version: 2,
        url,
        config_offset: 42,
        allocation: Some(current),
    };
    let mut as0 = assignment(0, NO_ERROR, 42);
    as0.assigned = Some(vec![entry("a", &[-1, 0, 1]), entry("b", &[-1, 3])]);
    let mut as1 = assignment(1, NO_ERROR, 42);
    as1.assigned = Some(vec![entry("b", &[-1, 0]), entry("a", &[1])]);
    as1.revoked = Some(vec![entry("a", &[-1, 5])]);
    as1.delay = 1500;
    let as2 = Assignment {
        version: 2,
        ..as1.clone()
    };
    let mismatch = assignment(1, CONFIG_MISMATCH, 50);
    BTreeMap::from([
        ("md0", md0.encode().unwrap()),
        ("md1", md1.encode().unwrap()),
        ("md2", md2.encode().unwrap()),
        ("as0", as0.encode().unwrap()),
        ("as1", as1.encode().unwrap()),
        ("as2", as2.encode().unwrap()),
        ("mismatch", mismatch.encode().unwrap()),
    ])
}

/// The oracle's canonical description of an assignment.
fn desc(a: &Assignment) -> String {
    let sorted = |items: &WorkItems| {
        let c: Vec<String> = items.connectors.iter().cloned().collect();
        let mut t: Vec<String> = items.tasks.iter().map(TaskId::to_string).collect();
        t.sort();
        (format!("[{}]", c.join(",")), format!("[{}]", t.join(",")))
    };
    let (c, t) = sorted(&a.assigned_items());
    let (rc, rt) = sorted(&a.revoked_items());
    format!(
        "v{} e{} l={} u={} o={} c={c} t={t} rc={rc} rt={rt} d={}",
        a.version, a.error, a.leader, a.leader_url, a.config_offset, a.delay
    )
}

#[test]
fn rust_and_kafka_connect_write_and_read_the_same_bytes() {
    let cp = oracle();

    // Kafka Connect → bytes; Rust writes the same cases byte for byte and reads them back.
    let java_out = java(&cp, "serialize", "");
    let java_bytes: BTreeMap<String, Vec<u8>> = java_out
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_owned(), unhex(v.trim())))
        .collect();
    let rust = cases();
    assert_eq!(java_bytes.len(), rust.len(), "oracle printed: {java_out}");
    for (name, bytes) in &rust {
        assert_eq!(
            hex(bytes),
            hex(&java_bytes[*name]),
            "case {name}: Rust bytes differ from Kafka Connect's"
        );
        if name.starts_with("md") {
            let m = WorkerMetadata::decode(&java_bytes[*name]).unwrap();
            assert_eq!(&m.encode().unwrap(), bytes, "case {name}: read and rewrite");
        } else {
            let a = Assignment::decode(&java_bytes[*name]).unwrap();
            assert_eq!(&a.encode().unwrap(), bytes, "case {name}: read and rewrite");
        }
    }

    // Rust → bytes (its own sorted entry order); Kafka Connect reads them to the same values
    // and its re-serialization reads back equal in Rust.
    let mut items = WorkItems::default();
    items.connectors.insert("conn-b".into());
    items.tasks.insert(TaskId::new("conn-a", 3));
    items.tasks.insert(TaskId::new("conn-b", 0));
    let mut revoked = WorkItems::default();
    revoked.tasks.insert(TaskId::new("conn-a", 1));
    let mut inc = assignment(2, NO_ERROR, 7);
    inc.assigned = Some(items.to_entries());
    inc.revoked = Some(revoked.to_entries());
    inc.delay = 300_000;
    let mut eager = assignment(0, NO_ERROR, 7);
    eager.assigned = Some(items.to_entries());
    let meta = WorkerMetadata {
        version: 2,
        url: "https://worker-ü:8443/".into(),
        config_offset: 7,
        allocation: Some(inc.clone()),
    };
    let meta1_null = WorkerMetadata {
        version: 1,
        url: "http://x/".into(),
        config_offset: -1,
        allocation: None,
    };
    let meta0 = WorkerMetadata {
        version: 0,
        url: "http://x/".into(),
        config_offset: 3,
        allocation: None,
    };
    let input = format!(
        "assignment {}\nassignment0 {}\nmetadata {}\nmetadata {}\nmetadata0 {}\n",
        hex(&inc.encode().unwrap()),
        hex(&eager.encode().unwrap()),
        hex(&meta.encode().unwrap()),
        hex(&meta1_null.encode().unwrap()),
        hex(&meta0.encode().unwrap()),
    );
    let out = java(&cp, "decode", &input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "oracle printed: {out}");
    let reser = |line: &str| unhex(line.rsplit_once(" reser=").expect("reser").1);

    assert_eq!(lines[0].split(" reser=").next(), Some(desc(&inc).as_str()));
    let back = Assignment::decode(&reser(lines[0])).unwrap();
    assert_eq!(
        (back.assigned_items(), back.revoked_items()),
        (inc.assigned_items(), inc.revoked_items())
    );

    assert_eq!(
        lines[1].split(" reser=").next(),
        Some(desc(&eager).as_str())
    );
    assert_eq!(
        Assignment::decode(&reser(lines[1]))
            .unwrap()
            .assigned_items(),
        items
    );

    assert_eq!(
        lines[2].split(" reser=").next().unwrap(),
        format!("url={} o=7 alloc={}", meta.url, desc(&inc))
    );
    let back = WorkerMetadata::decode(&reser(lines[2])).unwrap();
    assert_eq!(back.allocation.map(|a| a.assigned_items()), Some(items));

    assert_eq!(
        lines[3],
        format!(
            "url=http://x/ o=-1 alloc=none reser={}",
            hex(&meta1_null.encode().unwrap())
        )
    );
    assert_eq!(
        lines[4],
        format!("url=http://x/ o=3 reser={}", hex(&meta0.encode().unwrap()))
    );
}
