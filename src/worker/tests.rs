//! Tests of the worker: task restarts, retries and conversions through whole runs.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use std::sync::Mutex;

use connect_api::{
    ConfigDef, OffsetMap, PluginDesc, PluginKind, Result as ConnectResult, SinkConnector,
    SinkPlugin, SinkTask, SourceConnector, SourcePlugin, SourceRecord, SourceTask,
    SourceTaskContext,
};

use super::*;
use crate::storage::FileOffsetStore;
use crate::topics::local::LocalLog;

/// A source whose first task instance fails to start with a retriable error (its system is
/// briefly unavailable); later ones produce one record.
struct Flaky {
    instances: Arc<AtomicUsize>,
}

struct FlakyConnector;

#[async_trait]
impl SourceConnector for FlakyConnector {
    async fn start(&mut self, _: &ConfigMap) -> ConnectResult<()> {
        Ok(())
    }
    fn task_configs(&self, _: usize) -> ConnectResult<Vec<ConfigMap>> {
        Ok(vec![ConfigMap::new()])
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

struct FlakyTask {
    instance: usize,
    sent: bool,
}

#[async_trait]
impl SourceTask for FlakyTask {
    async fn start(&mut self, _: SourceTaskContext, _: &ConfigMap) -> ConnectResult<()> {
        if self.instance == 0 {
            return Err(ConnectError::Retriable(
                "the source is briefly unavailable".into(),
            ));
        }
        Ok(())
    }
    async fn poll(&mut self) -> ConnectResult<Vec<SourceRecord>> {
        if self.sent {
            tokio::time::sleep(Duration::from_millis(20)).await;
            return Ok(Vec::new());
        }
        self.sent = true;
        Ok(vec![SourceRecord {
            source_partition: Arc::new(OffsetMap::new()),
            source_offset: None,
            record: connect_api::ConnectRecord {
                topic: "flaky".into(),
                value: connect_api::Value::String("after restart".into()),
                value_schema: Some(connect_api::Schema::required(
                    connect_api::SchemaType::String,
                )),
                ..Default::default()
            },
        }])
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

/// A source whose every task instance polls once, for [`LOST_AFTER`], then loses its
/// instance (as when the plugin host JVM that ran it dies).
struct Lost {
    instances: Arc<AtomicUsize>,
    polls: Arc<AtomicUsize>,
}

const LOST_AFTER: Duration = Duration::from_millis(80);

struct LostTask {
    polls: Arc<AtomicUsize>,
}

#[async_trait]
impl SourceTask for LostTask {
    async fn start(&mut self, _: SourceTaskContext, _: &ConfigMap) -> ConnectResult<()> {
        Ok(())
    }
    async fn poll(&mut self) -> ConnectResult<Vec<SourceRecord>> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(LOST_AFTER).await;
        Err(ConnectError::InstanceLost(
            "the process running the task died".into(),
        ))
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

impl SourcePlugin for Lost {
    fn desc(&self) -> PluginDesc {
        test_desc(
            "test.LostSourceConnector",
            PluginKind::Source,
            "test.LostSourceTask",
        )
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn new_connector(&self) -> Box<dyn SourceConnector> {
        Box::new(FlakyConnector)
    }
    fn new_task(&self) -> Box<dyn SourceTask> {
        self.instances.fetch_add(1, Ordering::SeqCst);
        Box::new(LostTask {
            polls: self.polls.clone(),
        })
    }
}

#[tokio::test]
async fn a_lost_task_instance_is_replaced_not_polled_again_and_healthy_runs_reset_the_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let lost = Arc::new(Lost {
        instances: Arc::new(AtomicUsize::new(0)),
        polls: Arc::new(AtomicUsize::new(0)),
    });
    let plugin: Arc<dyn SourcePlugin> = lost.clone();
    let plugins = Arc::new(PluginRegistry::new(
        vec![plugin.clone()],
        Vec::<Arc<dyn SinkPlugin>>::new(),
        crate::converters::builtin_converters(),
        Vec::new(),
        Vec::new(),
    ));
    let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
    let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
    // Each run lasts longer than the longest backoff: none of the failures is consecutive.
    let settings = WorkerSettings {
        restart: RestartPolicy {
            enabled: true,
            max_attempts: 2,
            initial_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(50),
        },
        ..WorkerSettings::default()
    };
    let mut worker = Worker::new(settings, plugins, offsets, log.clone());
    worker
        .start_connector(string_spec("lost", ConnectorPlugin::Source(plugin), None))
        .await
        .unwrap();
    for _ in 0..500 {
        let report = &worker.task_reports("lost")[0];
        if lost.instances.load(Ordering::SeqCst) >= 5 || report.activity == Activity::Failed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let report = worker.task_reports("lost").remove(0);
    worker.stop().await;
    log.close().await;
    let (instances, polls) = (
        lost.instances.load(Ordering::SeqCst),
        lost.polls.load(Ordering::SeqCst),
    );
    assert_ne!(report.activity, Activity::Failed, "{:?}", report.error);
    assert!(
        instances >= 5,
        "{instances} instances: restarted past max_attempts"
    );
    // A lost instance is never polled again (the last one may not have polled yet).
    assert!(
        polls == instances || polls + 1 == instances,
        "{polls} polls of {instances} instances"
    );
}

/// A test plugin's description.
fn test_desc(class_name: &'static str, kind: PluginKind, task: &'static str) -> PluginDesc {
    PluginDesc {
        class_name,
        kind,
        version: "0",
        task_class: Some(task),
    }
}

impl SourcePlugin for Flaky {
    fn desc(&self) -> PluginDesc {
        test_desc(
            "test.FlakySourceConnector",
            PluginKind::Source,
            "test.FlakySourceTask",
        )
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn new_connector(&self) -> Box<dyn SourceConnector> {
        Box::new(FlakyConnector)
    }
    fn new_task(&self) -> Box<dyn SourceTask> {
        let instance = self.instances.fetch_add(1, Ordering::SeqCst);
        Box::new(FlakyTask {
            instance,
            sent: false,
        })
    }
}

/// A one-task connector with String converters and nothing else configured.
fn string_spec(
    name: &str,
    plugin: ConnectorPlugin,
    subscription: Option<crate::topics::Subscription>,
) -> ConnectorSpec {
    let string = |class: &str| ConverterConfig {
        class: class.to_owned(),
        props: ConfigMap::new(),
        version: None,
    };
    ConnectorSpec {
        name: name.into(),
        plugin,
        props: ConfigMap::new(),
        raw_props: ConfigMap::new(),
        providers: Arc::default(),
        redactor: Arc::default(),
        tasks_max: 1,
        key_converter: string("StringConverter"),
        value_converter: string("StringConverter"),
        header_converter: string("SimpleHeaderConverter"),
        errors: Default::default(),
        transforms: Default::default(),
        subscription,
        producer_overrides: ConfigMap::new(),
        consumer_overrides: ConfigMap::new(),
        admin_overrides: ConfigMap::new(),
        transaction_boundary: TransactionBoundary::Poll,
        topic_creation: None,
    }
}

async fn run_flaky(
    enabled: bool,
) -> (
    Activity,
    usize,
    Option<String>,
    Vec<crate::topics::ConsumedRecord>,
) {
    let dir = tempfile::tempdir().unwrap();
    let instances = Arc::new(AtomicUsize::new(0));
    let flaky: Arc<dyn SourcePlugin> = Arc::new(Flaky {
        instances: instances.clone(),
    });
    let plugins = Arc::new(PluginRegistry::new(
        vec![flaky.clone()],
        Vec::<Arc<dyn SinkPlugin>>::new(),
        crate::converters::builtin_converters(),
        Vec::new(),
        Vec::new(),
    ));
    let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
    let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
    let settings = WorkerSettings {
        restart: RestartPolicy {
            enabled,
            max_attempts: 3,
            initial_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(50),
        },
        ..WorkerSettings::default()
    };
    let mut worker = Worker::new(settings, plugins, offsets, log.clone());
    worker
        .start_connector(string_spec("flaky", ConnectorPlugin::Source(flaky), None))
        .await
        .unwrap();
    // Wait until the task has either produced its record or failed for good.
    let tp = crate::topics::TopicPartition {
        topic: "flaky".into(),
        partition: 0,
    };
    let mut records = Vec::new();
    for _ in 0..500 {
        let report = &worker.task_reports("flaky")[0];
        records = log.read(&tp, 0, 10).unwrap_or_default();
        if !records.is_empty() || report.activity == Activity::Failed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let report = worker.task_reports("flaky").remove(0);
    worker.stop().await;
    log.close().await;
    (
        report.activity,
        instances.load(Ordering::SeqCst),
        report.error,
        records,
    )
}

#[tokio::test]
async fn a_task_failing_with_a_retriable_error_is_restarted_and_goes_on() {
    let (activity, instances, error, records) = run_flaky(true).await;
    assert_eq!(instances, 2, "one restart");
    assert_ne!(activity, Activity::Failed);
    assert!(
        error.is_some_and(|e| e.contains("briefly unavailable")),
        "the last failure is kept for status"
    );
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].value.as_deref(), Some(&b"after restart"[..]));
}

#[tokio::test]
async fn without_automatic_restarts_the_task_stays_failed() {
    let (activity, instances, error, records) = run_flaky(false).await;
    assert_eq!(activity, Activity::Failed);
    assert_eq!(instances, 1);
    assert!(error.is_some_and(|e| e.contains("briefly unavailable")));
    assert!(records.is_empty());
}

/// A sink whose first `put` fails with a retriable error; every put's values are kept.
struct Refusing {
    puts: Arc<Mutex<Vec<Vec<String>>>>,
}

struct RefusingConnector;

#[async_trait]
impl SinkConnector for RefusingConnector {
    async fn start(&mut self, _: &ConfigMap) -> ConnectResult<()> {
        Ok(())
    }
    fn task_configs(&self, _: usize) -> ConnectResult<Vec<ConfigMap>> {
        Ok(vec![ConfigMap::new()])
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

struct RefusingTask {
    puts: Arc<Mutex<Vec<Vec<String>>>>,
}

#[async_trait]
impl SinkTask for RefusingTask {
    async fn start(&mut self, _: connect_api::SinkTaskContext, _: &ConfigMap) -> ConnectResult<()> {
        Ok(())
    }
    async fn put(&mut self, records: Vec<connect_api::SinkRecord>) -> ConnectResult<()> {
        let values = records
            .iter()
            .map(|r| format!("{:?}", r.record.value))
            .collect();
        let mut puts = self.puts.lock().unwrap();
        puts.push(values);
        if puts.len() == 1 {
            return Err(ConnectError::Retriable("the target is busy".into()));
        }
        Ok(())
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

impl SinkPlugin for Refusing {
    fn desc(&self) -> PluginDesc {
        test_desc(
            "test.RefusingSinkConnector",
            PluginKind::Sink,
            "test.RefusingSinkTask",
        )
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn new_connector(&self) -> Box<dyn SinkConnector> {
        Box::new(RefusingConnector)
    }
    fn new_task(&self) -> Box<dyn SinkTask> {
        Box::new(RefusingTask {
            puts: self.puts.clone(),
        })
    }
}

#[tokio::test]
async fn a_batch_refused_with_a_retriable_error_is_converted_and_put_again_whole() {
    let dir = tempfile::tempdir().unwrap();
    let puts = Arc::new(Mutex::new(Vec::new()));
    let refusing: Arc<dyn SinkPlugin> = Arc::new(Refusing { puts: puts.clone() });
    let plugins = Arc::new(PluginRegistry::new(
        Vec::<Arc<dyn SourcePlugin>>::new(),
        vec![refusing.clone()],
        crate::converters::builtin_converters(),
        Vec::new(),
        Vec::new(),
    ));
    let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
    let records = ["a", "b", "c"]
        .into_iter()
        .map(|v| crate::topics::ProducerRecord {
            topic: "in".into(),
            partition: Some(0),
            key: None,
            value: Some(v.as_bytes().to_vec()),
            timestamp: None,
            headers: Vec::new(),
        })
        .collect();
    let producer = log.producer(&crate::topics::ClientSpec::default()).unwrap();
    producer.send_batch(records).await.unwrap().await.unwrap();
    let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
    let mut worker = Worker::new(WorkerSettings::default(), plugins, offsets, log.clone());
    worker
        .start_connector(string_spec(
            "refusing",
            ConnectorPlugin::Sink(refusing),
            Some(crate::topics::Subscription::Topics(vec!["in".into()])),
        ))
        .await
        .unwrap();
    for _ in 0..500 {
        if puts.lock().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    worker.stop().await;
    log.close().await;
    let puts = puts.lock().unwrap().clone();
    let expected: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|v| format!("{:?}", connect_api::Value::String((*v).into())))
        .collect();
    assert!(puts.len() >= 2, "put again after the refusal: {puts:?}");
    assert_eq!(puts[0], expected);
    assert_eq!(puts[1], expected, "the same batch, converted again");
}

/// A source connector whose start never returns (a database that never answers); its stop
/// is recorded.
struct Hanging {
    stopped: Arc<AtomicUsize>,
}

struct HangingConnector {
    stopped: Arc<AtomicUsize>,
}

#[async_trait]
impl SourceConnector for HangingConnector {
    async fn start(&mut self, _: &ConfigMap) -> ConnectResult<()> {
        std::future::pending().await
    }
    fn task_configs(&self, _: usize) -> ConnectResult<Vec<ConfigMap>> {
        Ok(vec![ConfigMap::new()])
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        self.stopped.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

impl SourcePlugin for Hanging {
    fn desc(&self) -> PluginDesc {
        test_desc(
            "test.HangingSourceConnector",
            PluginKind::Source,
            "test.FlakySourceTask",
        )
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn new_connector(&self) -> Box<dyn SourceConnector> {
        Box::new(HangingConnector {
            stopped: self.stopped.clone(),
        })
    }
    fn new_task(&self) -> Box<dyn SourceTask> {
        Box::new(FlakyTask {
            instance: 1,
            sent: false,
        })
    }
}

async fn wait_stopped(stopped: &AtomicUsize, n: usize) {
    for _ in 0..500 {
        if stopped.load(Ordering::SeqCst) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the abandoned instance was not stopped");
}

#[tokio::test]
async fn a_start_that_hangs_fails_after_the_bound_and_a_stop_abandons_it() {
    let dir = tempfile::tempdir().unwrap();
    let stopped = Arc::new(AtomicUsize::new(0));
    let hanging: Arc<dyn SourcePlugin> = Arc::new(Hanging {
        stopped: stopped.clone(),
    });
    let plugins = Arc::new(PluginRegistry::new(
        vec![hanging.clone()],
        Vec::<Arc<dyn SinkPlugin>>::new(),
        crate::converters::builtin_converters(),
        Vec::new(),
        Vec::new(),
    ));
    let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
    let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
    let settings = WorkerSettings {
        connector_start_timeout: Duration::from_millis(100),
        ..WorkerSettings::default()
    };
    let mut worker = Worker::new(settings, plugins, offsets, log.clone());
    let mut events = worker.take_connector_events().unwrap();
    let spec = Arc::new(string_spec("h", ConnectorPlugin::Source(hanging), None));

    // Awaited: a failure naming the bound, the instance stopped in the background.
    let err = worker.start_connector_instance(&spec).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Failed to start connector h: The connector did not start within 100 ms (connector.start.timeout.ms); it was stopped"
    );
    assert!(!worker.runs_connector("h") && !worker.is_starting("h"));
    wait_stopped(&stopped, 1).await;

    // Begun: a stop abandons it at once, and its late outcome is ignored.
    worker.begin_connector_start(&spec);
    assert!(worker.is_starting("h"));
    worker.stop_connector_instance("h").await;
    assert!(!worker.is_starting("h"));
    let Some(connector_events::ConnectorEvent::Started(outcome)) = events.recv().await else {
        panic!("the start's outcome");
    };
    assert!(worker.finish_connector_start(outcome).is_none());
    wait_stopped(&stopped, 2).await;

    // Begun and left alone: the outcome is the bound's failure.
    worker.begin_connector_start(&spec);
    let Some(connector_events::ConnectorEvent::Started(outcome)) = events.recv().await else {
        panic!("the start's outcome");
    };
    let Some(Err(failed)) = worker.finish_connector_start(outcome) else {
        panic!("the bound's failure");
    };
    assert!(
        failed.to_string().contains("did not start within 100 ms"),
        "{failed}"
    );
    assert!(!worker.is_starting("h") && !worker.runs_connector("h"));
    worker.stop().await;
    log.close().await;
}
