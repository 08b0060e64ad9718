//! The real-Kafka harness itself: a broker from `scripts/kafka-harness.sh` (Apache Kafka from
//! Maven Central, KRaft, single node), driven with Kafka's own console tools.

mod support;

use std::net::TcpStream;
use std::time::Duration;

use support::kafka::{broker, dedicated_broker, Broker};

const TOPIC_COMMAND: &str = "org.apache.kafka.tools.TopicCommand";
const CONSOLE_PRODUCER: &str = "org.apache.kafka.tools.ConsoleProducer";
const CONSOLE_CONSUMER: &str = "org.apache.kafka.tools.consumer.ConsoleConsumer";

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
    let max = max.to_string();
    let group = Broker::unique("harness-group");
    let out = broker.tools(
        CONSOLE_CONSUMER,
        &[
            "--bootstrap-server",
            broker.bootstrap(),
            "--topic",
            topic,
            "--group",
            &group,
            "--from-beginning",
            "--max-messages",
            &max,
            "--timeout-ms",
            "30000",
        ],
    );
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
