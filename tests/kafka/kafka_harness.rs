//! The real-Kafka harness itself: a broker from `scripts/kafka-harness.sh` (Apache Kafka from
//! Maven Central, KRaft, single node), driven with Kafka's own console tools.

use crate::support;

use std::net::TcpStream;
use std::time::Duration;

use support::kafka::{broker, dedicated_broker, Broker};

const TOPIC_COMMAND: &str = "org.apache.kafka.tools.TopicCommand";
const CONSOLE_PRODUCER: &str = "org.apache.kafka.tools.ConsoleProducer";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn produce(broker: &Broker, topic: &str, lines: &str) {
    let out = broker.tools_with_input(
        CONSOLE_PRODUCER,
        &["--bootstrap-server", broker.bootstrap(), "--topic", topic],
        lines.as_bytes(),
    );
    assert!(
        out.status.success(),
        "ConsoleProducer failed: {}",
        text(&out.stderr)
    );
}

fn consume(broker: &Broker, topic: &str, max: usize) -> Vec<String> {
    let group = Broker::unique("harness-group");
    let out = broker.consume_from_beginning(topic, max, 30_000, &["--group", &group]);
    assert!(
        out.status.success(),
        "ConsoleConsumer failed: {}",
        text(&out.stderr)
    );
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn produce_and_consume_with_console_tools() {
    let broker = broker();
    let topic = Broker::unique("harness-demo");
    broker.create_topic(&topic, 1);

    let listed = broker.tools(
        TOPIC_COMMAND,
        &["--bootstrap-server", broker.bootstrap(), "--list"],
    );
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert!(
        text(&listed.stdout).lines().any(|l| l == topic),
        "topic {topic} not listed: {}",
        text(&listed.stdout)
    );

    produce(&broker, &topic, "alpha\nbeta\ngamma\n");
    assert_eq!(consume(&broker, &topic, 3), ["alpha", "beta", "gamma"]);
}

#[test]
fn records_survive_pause_and_resume() {
    // A broker of its own: pausing the shared one would cut off the other tests of this binary.
    let broker = dedicated_broker("harness-outage");
    let topic = Broker::unique("harness-outage");
    broker.create_topic(&topic, 1);
    produce(&broker, &topic, "one\ntwo\nthree\n");

    broker.pause();
    let addr = broker.bootstrap().parse().expect("bootstrap is HOST:PORT");
    assert!(
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_err(),
        "the paused broker still accepts connections on {addr}"
    );

    broker.resume();
    assert_eq!(consume(&broker, &topic, 3), ["one", "two", "three"]);
}

/// Whether process `pid` runs (a zombie does not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// `scripts/kafka-harness.sh COMMAND` for instance `instance`, with extra environment.
fn harness_script(instance: &str, command: &str, env: &[(&str, &str)]) -> std::process::Output {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/kafka-harness.sh");
    std::process::Command::new("bash")
        .arg(script)
        .arg(command)
        .env("KAFKA_HARNESS_INSTANCE", instance)
        .env_remove("KAFKA_HARNESS_LEASE")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run scripts/kafka-harness.sh")
}

/// Stops an instance when the test ends, whatever happened.
struct StopInstance(&'static str);

impl Drop for StopInstance {
    fn drop(&mut self) {
        let _ = harness_script(self.0, "stop", &[]);
    }
}

#[test]
fn a_leased_broker_runs_while_a_holder_lives_and_stops_when_none_does() {
    // An instance of its own: the shared broker of the other tests is never touched.
    const INSTANCE: &str = "lease-probe";
    let _stop = StopInstance(INSTANCE);
    let mut holder = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("spawn a lease holder");
    let out = harness_script(
        INSTANCE,
        "start",
        &[("KAFKA_HARNESS_LEASE", &holder.id().to_string())],
    );
    assert!(out.status.success(), "start failed: {}", text(&out.stderr));
    let harness_dir = std::env::var_os("KAFKA_HARNESS_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/kafka-harness"),
        std::path::PathBuf::from,
    );
    let base = harness_dir.join("instances").join(INSTANCE);
    let pid_in = |file: &str, key: &str| -> u32 {
        let text = std::fs::read_to_string(base.join(file)).unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {key} in {file}: {text:?}"))
    };
    let broker = pid_in("state", "pid=");
    let watchdog = pid_in("watchdog.pid", "");
    assert!(running(broker) && running(watchdog));

    // The holder lives: the broker outlasts several watchdog rounds (one a second).
    let alive_until = std::time::Instant::now() + Duration::from_secs(4);
    while std::time::Instant::now() < alive_until {
        assert!(
            running(broker),
            "the broker stopped while its lease holder lives"
        );
        std::thread::park_timeout(Duration::from_millis(100));
    }

    // The holder exits: the watchdog stops the broker, and then itself.
    holder.kill().expect("kill the lease holder");
    holder.wait().expect("reap the lease holder");
    support::wait_for("the broker to stop", Duration::from_secs(90), || {
        !running(broker)
    });
    support::wait_for("the watchdog to exit", Duration::from_secs(10), || {
        !running(watchdog)
    });
    let status = harness_script(INSTANCE, "status", &[]);
    assert_eq!(status.status.code(), Some(3), "{}", text(&status.stdout));
}
