//! A connect-rs member and Apache Kafka Connect's own `ConnectDistributed` worker in one group:
//! each leads in turn, and each accepts the other's metadata and assignments.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use connect_membership::assignor::ConfigSnapshot;
use connect_membership::protocol::ConnectProtocol;
use connect_membership::{Assigned, ClusterView, GroupMember, MemberConfig, MemberEvent};
use tokio::sync::mpsc::UnboundedReceiver;

/// An empty config topic, as a fresh Java worker sees it (offset -1, no connectors).
struct Empty;

#[async_trait::async_trait]
impl ClusterView for Empty {
    fn config_offset(&self) -> i64 {
        -1
    }
    async fn snapshot(&self, _max: i64) -> ConfigSnapshot {
        ConfigSnapshot {
            offset: -1,
            connectors: Default::default(),
        }
    }
}

/// `ConnectDistributed`, killed on drop.
struct JavaWorker {
    child: Child,
    log: PathBuf,
    url: String,
}

impl Drop for JavaWorker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl JavaWorker {
    fn start(dir: &Path, bootstrap: &str, group: &str) -> Self {
        let libs = support::connect_libs();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let log = dir.join("connect.log");
        let log4j = dir.join("log4j2.properties");
        std::fs::write(
            &log4j,
            format!(
                "status = warn\nappender.file.type = File\nappender.file.name = FILE\n\
                 appender.file.fileName = {}\nappender.file.layout.type = PatternLayout\n\
                 appender.file.layout.pattern = [%d] %p %m (%c)%n\nrootLogger.level = INFO\n\
                 rootLogger.appenderRef.file.ref = FILE\n",
                log.display()
            ),
        )
        .expect("log4j2 file");
        let worker = dir.join("worker.properties");
        let mut props = format!(
            "bootstrap.servers={bootstrap}\ngroup.id={group}\nlisteners=http://127.0.0.1:{port}\n\
             rest.advertised.host.name=127.0.0.1\nheartbeat.interval.ms=1000\n\
             key.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        );
        for (kind, partitions) in [("config", 1), ("offset", 1), ("status", 1)] {
            props.push_str(&format!(
                "{kind}.storage.topic={group}-{kind}\n{kind}.storage.replication.factor=1\n"
            ));
            if kind != "config" {
                props.push_str(&format!("{kind}.storage.partitions={partitions}\n"));
            }
        }
        std::fs::write(&worker, props).expect("worker file");
        let console = std::fs::File::create(dir.join("console.log")).expect("console file");
        let child = Command::new(support::java_tool("java"))
            .args([
                "-Xms128m",
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
            ])
            .arg(format!("-Dlog4j2.configurationFile={}", log4j.display()))
            .arg("-cp")
            .arg(format!("{}/*", libs.display()))
            .arg("org.apache.kafka.connect.cli.ConnectDistributed")
            .arg(&worker)
            .stdin(Stdio::null())
            .stdout(console.try_clone().expect("console"))
            .stderr(console)
            .spawn()
            .expect("start java (Apache Kafka Connect)");
        JavaWorker {
            child,
            log,
            url: format!("http://127.0.0.1:{port}/"),
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the Java worker's log has a line containing every one of `parts`.
    async fn wait_for_line(&mut self, parts: &[&str]) -> String {
        let start = Instant::now();
        loop {
            if let Some(line) = self
                .log()
                .lines()
                .find(|l| parts.iter().all(|p| l.contains(p)))
            {
                return line.to_owned();
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("Kafka Connect exited with {status}; log:\n{}", self.log());
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no log line with {parts:?} within 120 s; log:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

fn rust_member(
    bootstrap: &str,
    group: &str,
    url: &str,
) -> (GroupMember, UnboundedReceiver<MemberEvent>) {
    let mut config = MemberConfig::new(bootstrap, group, url);
    config.heartbeat_interval = Duration::from_secs(1);
    GroupMember::join(config, Arc::new(Empty)).expect("join")
}

/// The next assignment satisfying `accept`, within 120 s.
async fn assigned(
    events: &mut UnboundedReceiver<MemberEvent>,
    accept: impl Fn(&Assigned) -> bool,
) -> Assigned {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("an assignment within 120 s")
            .expect("event");
        if let MemberEvent::Assigned(a) = event {
            if accept(&a) {
                return *a;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_rs_and_kafka_connect_workers_share_a_group() {
    let bootstrap = support::bootstrap();
    let group = support::unique("mixed");
    let dir = tempfile_dir(&group);

    // connect-rs joins first and leads; the Java worker joins and accepts its assignment.
    let (rust, mut events) = rust_member(&bootstrap, &group, "http://rust-1:8083/");
    let first = assigned(&mut events, |_| true).await;
    assert!(first.is_leader);
    let mut java = JavaWorker::start(&dir, &bootstrap, &group);
    let with_java = assigned(&mut events, |a| a.member_urls.len() == 2).await;
    assert!(with_java.is_leader, "{with_java:?}");
    assert_eq!(with_java.protocol, ConnectProtocol::Sessioned);
    assert!(
        with_java.member_urls.values().any(|u| u == &java.url),
        "the Java worker's metadata read: {with_java:?}"
    );
    let line = java
        .wait_for_line(&[
            "Joined group at generation",
            "leaderUrl='http://rust-1:8083/'",
        ])
        .await;
    assert!(line.contains("error=0"), "{line}");
    assert!(line.contains("protocol version 2"), "{line}");

    // connect-rs leaves; Java leads and a new connect-rs member accepts Java's assignment.
    rust.leave().await;
    java.wait_for_line(&[
        "Joined group at generation",
        &format!("leaderUrl='{}'", java.url),
    ])
    .await;
    let (rust2, mut events2) = rust_member(&bootstrap, &group, "http://rust-2:8083/");
    let from_java = assigned(&mut events2, |a| a.leader_url == java.url).await;
    assert!(!from_java.is_leader);
    assert_eq!(from_java.error, 0);
    assert_eq!(from_java.protocol, ConnectProtocol::Sessioned);
    assert!(from_java.assignment.is_empty());
    rust2.leave().await;
    assert!(
        !java.log().contains(" ERROR "),
        "the Java worker logged errors:\n{}",
        java.log()
    );
}

fn tempfile_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("test dir");
    dir
}
