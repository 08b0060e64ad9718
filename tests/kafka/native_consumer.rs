//! The sink tasks' consumer group member on tokio (`connect-consumer`, issue 33) against the
//! real broker: it reads what Kafka's Java producer wrote with each of the four codecs and what
//! librdkafka wrote with duplicate header keys and null keys and values, exactly; two members
//! of one group share the partitions after a rebalance and resume from the committed offsets;
//! Kafka's own consumer-groups tool sees the group, its members and offsets; `read_committed`
//! leaves aborted transactions out.

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use connect_consumer::batch::FetchedRecord;
use connect_consumer::{Consumer, ConsumerConfig, Polled, Subscription};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::ClientConfig;
use support::kafka::{broker, Broker};

const WAIT: Duration = Duration::from_secs(60);

type Key = (String, i32);

/// (key, value, headers) of a record, as text.
type Seen = (
    Option<String>,
    Option<String>,
    Vec<(String, Option<String>)>,
);

fn seen(r: &FetchedRecord) -> Seen {
    let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
    (
        text(r.key.as_deref()),
        text(r.value.as_deref()),
        r.headers
            .iter()
            .map(|(k, v)| (k.clone(), text(v.as_deref())))
            .collect(),
    )
}

fn config(broker: &Broker, group: &str) -> ConsumerConfig {
    let mut c = ConsumerConfig::new(broker.bootstrap(), group, "native-consumer-test");
    c.heartbeat_interval = Duration::from_millis(500);
    c.session_timeout = Duration::from_secs(10);
    c
}

/// Polls `consumer` until it has `n` records, answering revocations by rejoining.
async fn read(consumer: &mut Consumer, n: usize) -> Vec<(Key, FetchedRecord)> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + WAIT;
    while got.len() < n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "only {} of {n} records",
            got.len()
        );
        if let Polled::Records(r) = consumer
            .poll(1000, Duration::from_millis(200))
            .await
            .unwrap()
        {
            got.extend(r);
        }
    }
    got
}

/// Runs Kafka's Java ConsoleProducer with `codec`, writing `key:value` lines.
fn java_produce(broker: &Broker, topic: &str, codec: &str, lines: &[String]) {
    let input = lines.join("\n") + "\n";
    let out = broker.tools_with_input(
        "org.apache.kafka.tools.ConsoleProducer",
        &[
            "--bootstrap-server",
            broker.bootstrap(),
            "--topic",
            topic,
            "--compression-codec",
            codec,
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
        ],
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_member_reads_every_codec_exactly_and_two_members_share_the_partitions() {
    let broker = broker();
    let topic = Broker::unique("native");
    broker.create_topic(&topic, 2);
    let mut expected: Vec<Seen> = Vec::new();
    for codec in ["gzip", "snappy", "lz4", "zstd"] {
        let lines: Vec<String> = (0..25)
            .map(|i| format!("{codec}-{i}:{codec}-value-{i}"))
            .collect();
        java_produce(&broker, &topic, codec, &lines);
        expected.extend((0..25).map(|i| {
            (
                Some(format!("{codec}-{i}")),
                Some(format!("{codec}-value-{i}")),
                Vec::new(),
            )
        }));
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        // librdkafka: duplicate header keys, null keys and values, raw snappy blocks.
        let producer: FutureProducer = ClientConfig::new()
            .set("bootstrap.servers", broker.bootstrap())
            .set("compression.type", "snappy")
            .create()
            .unwrap();
        for i in 0..20 {
            let headers = OwnedHeaders::new()
                .insert(Header {
                    key: "h",
                    value: Some("1"),
                })
                .insert(Header {
                    key: "h",
                    value: Some("2"),
                })
                .insert(Header {
                    key: "n",
                    value: None::<&str>,
                });
            let value = format!("rd-{i}");
            let mut record: FutureRecord<'_, str, str> =
                FutureRecord::to(&topic).partition(i % 2).headers(headers);
            if i % 3 != 0 {
                record = record.payload(&value);
            }
            producer
                .send(record, Duration::from_secs(30))
                .await
                .unwrap();
            expected.push((
                None,
                (i % 3 != 0).then(|| value.clone()),
                vec![
                    ("h".into(), Some("1".into())),
                    ("h".into(), Some("2".into())),
                    ("n".into(), None),
                ],
            ));
        }
        producer.flush(Duration::from_secs(30)).unwrap();
        let total = expected.len();

        let group = Broker::unique("native-group");
        let mut a = Consumer::new(config(&broker, &group));
        a.subscribe(Subscription::Topics(vec![topic.clone()])).await;
        let got = read(&mut a, total).await;
        let mut got_seen: Vec<Seen> = got.iter().map(|(_, r)| seen(r)).collect();
        got_seen.sort();
        expected.sort();
        assert_eq!(got_seen, expected);
        // Offsets per partition: contiguous from 0.
        let mut ends: BTreeMap<Key, i64> = BTreeMap::new();
        for (tp, r) in &got {
            let next = ends.entry(tp.clone()).or_insert(0);
            assert_eq!(r.offset, *next, "{tp:?}");
            *next += 1;
        }
        assert!(
            a.at_end(),
            "a member that read everything is at its partitions' ends"
        );
        assert_eq!(a.lag(), Some(0));
        // Commit all but the last 10 records of each partition, then a second member joins.
        a.commit(
            ends.iter()
                .map(|(tp, e)| (tp.clone(), e - 10, Some("meta".into())))
                .collect(),
        )
        .await
        .unwrap();
        let committed = a.committed(ends.keys().cloned().collect()).await.unwrap();
        assert!(
            committed
                .values()
                .all(|(_, m)| m.as_deref() == Some("meta")),
            "{committed:?}"
        );
        let mut b = Consumer::new(config(&broker, &group));
        b.subscribe(Subscription::Topics(vec![topic.clone()])).await;
        let mut reread: Vec<(Key, i64)> = Vec::new();
        let mut revoked = None;
        let deadline = tokio::time::Instant::now() + WAIT;
        while reread.len() < 20 || a.assignment().len() + b.assignment().len() < 2 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "re-read {reread:?}, revoked {revoked:?}"
            );
            for c in [&mut a, &mut b] {
                match c.poll(1000, Duration::from_millis(100)).await.unwrap() {
                    Polled::Records(r) => {
                        reread.extend(r.into_iter().map(|(tp, r)| (tp, r.offset)))
                    }
                    Polled::Revoked(p) => revoked = Some(p),
                }
            }
        }
        assert_eq!(
            revoked.map(|p| p.len()),
            Some(2),
            "the first member handed back both partitions"
        );
        assert_eq!((a.assignment().len(), b.assignment().len()), (1, 1));
        reread.sort();
        let want: Vec<(Key, i64)> = ends
            .iter()
            .flat_map(|(tp, e)| (e - 10..*e).map(move |o| (tp.clone(), o)))
            .collect();
        assert_eq!(
            reread, want,
            "each member resumed at its partition's committed offset"
        );
        for c in [&mut a, &mut b] {
            let tp = c.assignment()[0].clone();
            c.commit(vec![(tp.clone(), ends[&tp], None)]).await.unwrap();
        }
        let out = broker.tools(
            "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
            &[
                "--bootstrap-server",
                broker.bootstrap(),
                "--describe",
                "--group",
                &group,
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .filter(|c: &Vec<&str>| c.len() > 6 && c[1] == topic)
            .collect();
        assert_eq!(rows.len(), 2, "{text}");
        for row in &rows {
            let partition: i32 = row[2].parse().unwrap();
            assert_eq!(
                row[3],
                ends[&(topic.clone(), partition)].to_string(),
                "{text}"
            );
            assert_eq!(row[5], "0", "lag: {text}");
        }
        assert_ne!(rows[0][6], rows[1][6], "two members: {text}");
        a.close().await;
        b.close().await;
    });
}

#[test]
fn read_committed_leaves_aborted_transactions_out() {
    let broker = broker();
    let topic = Broker::unique("native-txn");
    broker.create_topic(&topic, 1);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let producer: FutureProducer = ClientConfig::new()
            .set("bootstrap.servers", broker.bootstrap())
            .set("transactional.id", Broker::unique("native-txn-id"))
            .create()
            .unwrap();
        let t = Duration::from_secs(30);
        producer.init_transactions(t).unwrap();
        for (outcome, n) in [
            ("aborted", 5),
            ("committed", 3),
            ("aborted", 2),
            ("committed", 4),
        ] {
            producer.begin_transaction().unwrap();
            for i in 0..n {
                let value = format!("{outcome}-{i}");
                producer
                    .send(FutureRecord::<str, str>::to(&topic).payload(&value), t)
                    .await
                    .unwrap();
            }
            if outcome == "aborted" {
                producer.abort_transaction(t).unwrap();
            } else {
                producer.commit_transaction(t).unwrap();
            }
        }
        let values = |got: Vec<(Key, FetchedRecord)>| -> Vec<String> {
            got.iter().map(|(_, r)| seen(r).1.unwrap()).collect()
        };
        let mut committed_config = config(&broker, &Broker::unique("native-rc"));
        committed_config.read_committed = true;
        let mut rc = Consumer::new(committed_config);
        rc.subscribe(Subscription::Topics(vec![topic.clone()]))
            .await;
        let got = values(read(&mut rc, 7).await);
        let want: Vec<String> = (0..3)
            .map(|i| format!("committed-{i}"))
            .chain((0..4).map(|i| format!("committed-{i}")))
            .collect();
        assert_eq!(got, want);
        // Nothing more comes (the markers are not records), and the member is at the end.
        let more = rc.poll(100, Duration::from_millis(1500)).await.unwrap();
        assert_eq!(more, Polled::Records(Vec::new()));
        assert!(rc.at_end());
        let mut ru = Consumer::new(config(&broker, &Broker::unique("native-ru")));
        ru.subscribe(Subscription::Topics(vec![topic.clone()]))
            .await;
        assert_eq!(
            read(&mut ru, 14).await.len(),
            14,
            "read_uncommitted sees every data record"
        );
        rc.close().await;
        ru.close().await;
    });
}
