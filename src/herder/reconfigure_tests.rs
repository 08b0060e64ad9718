//! A connector's request for a task reconfiguration (its `ConnectorContext`) replaces its tasks
//! in standalone mode when the plan changed, and leaves them alone when it did not.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use connect_api::{
    ConfigDef, ConfigMap, ConnectorContext, PluginDesc, PluginKind, Result as ConnectResult,
    SinkPlugin, SourceConnector, SourcePlugin, SourceRecord, SourceTask, SourceTaskContext,
};

use super::standalone::StandaloneHerder;
use crate::config::WorkerConfig;
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::storage::FileOffsetStore;
use crate::topics::local::LocalLog;
use crate::worker::{ConnectorSpec, ConverterConfig, TransactionBoundary, Worker, WorkerSettings};

/// Plans one task per "table" in `tables`, each task config naming its table; keeps its
/// context where the test can reach it.
#[derive(Clone, Default)]
struct Tables {
    tables: Arc<AtomicUsize>,
    ctx: Arc<Mutex<Option<ConnectorContext>>>,
    task_starts: Arc<AtomicUsize>,
}

#[async_trait]
impl SourceConnector for Tables {
    fn initialize(&mut self, ctx: ConnectorContext) {
        *self.ctx.lock().unwrap() = Some(ctx);
    }
    async fn start(&mut self, _: &ConfigMap) -> ConnectResult<()> {
        Ok(())
    }
    fn task_configs(&self, max: usize) -> ConnectResult<Vec<ConfigMap>> {
        let n = self.tables.load(Ordering::SeqCst).min(max);
        Ok((0..n)
            .map(|i| ConfigMap::from([("table".to_owned(), format!("t{i}"))]))
            .collect())
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

struct Idle;

#[async_trait]
impl SourceTask for Idle {
    async fn start(&mut self, _: SourceTaskContext, _: &ConfigMap) -> ConnectResult<()> {
        Ok(())
    }
    async fn poll(&mut self) -> ConnectResult<Vec<SourceRecord>> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(Vec::new())
    }
    async fn stop(&mut self) -> ConnectResult<()> {
        Ok(())
    }
}

impl SourcePlugin for Tables {
    fn desc(&self) -> PluginDesc {
        PluginDesc {
            class_name: "test.TablesSourceConnector",
            kind: PluginKind::Source,
            version: "0",
            task_class: Some("test.TablesSourceTask"),
        }
    }
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }
    fn new_connector(&self) -> Box<dyn SourceConnector> {
        Box::new(self.clone())
    }
    fn new_task(&self) -> Box<dyn SourceTask> {
        self.task_starts.fetch_add(1, Ordering::SeqCst);
        Box::new(Idle)
    }
}

async fn tables_of(handle: &super::HerderHandle) -> Vec<String> {
    handle
        .task_configs("c")
        .await
        .unwrap()
        .into_iter()
        .map(|(_, c)| c["table"].clone())
        .collect()
}

#[tokio::test]
async fn a_reconfiguration_request_replaces_the_tasks_only_when_the_plan_changed() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = Tables::default();
    plugin.tables.store(2, Ordering::SeqCst);
    let source: Arc<dyn SourcePlugin> = Arc::new(plugin.clone());
    let plugins = Arc::new(PluginRegistry::new(
        vec![source.clone()],
        Vec::<Arc<dyn SinkPlugin>>::new(),
        crate::converters::builtin_converters(),
        Vec::new(),
        Vec::new(),
    ));
    let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
    let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
    let worker = Worker::new(
        WorkerSettings::default(),
        plugins.clone(),
        offsets,
        log.clone(),
    );
    let raw = crate::config::RawConfig::from_pairs(
        "worker.properties",
        [
            ("key.converter", "StringConverter"),
            ("value.converter", "StringConverter"),
        ],
    );
    let worker_config =
        Arc::new(WorkerConfig::from_raw(&raw, crate::config::WorkerMode::Standalone).unwrap());
    let mut herder = StandaloneHerder::new(worker, worker_config, plugins, "w:1".into());
    let converter = |class: &str| ConverterConfig {
        class: class.to_owned(),
        props: ConfigMap::new(),
        version: None,
    };
    herder
        .start(ConnectorSpec {
            name: "c".into(),
            plugin: ConnectorPlugin::Source(source),
            props: ConfigMap::new(),
            raw_props: ConfigMap::from([(
                "connector.class".to_owned(),
                "test.TablesSourceConnector".to_owned(),
            )]),
            providers: Arc::default(),
            redactor: Arc::default(),
            tasks_max: 5,
            key_converter: converter("StringConverter"),
            value_converter: converter("StringConverter"),
            header_converter: converter("SimpleHeaderConverter"),
            errors: Default::default(),
            transforms: Default::default(),
            subscription: None,
            producer_overrides: ConfigMap::new(),
            consumer_overrides: ConfigMap::new(),
            admin_overrides: ConfigMap::new(),
            transaction_boundary: TransactionBoundary::Poll,
            topic_creation: None,
        })
        .await
        .unwrap();
    let (handle, _task) = herder.spawn();
    assert_eq!(tables_of(&handle).await, ["t0", "t1"]);
    assert_eq!(plugin.task_starts.load(Ordering::SeqCst), 2);
    let ctx = plugin.ctx.lock().unwrap().clone().expect("initialized");

    // The same plan: nothing restarts.
    ctx.request_task_reconfiguration();
    // A third table: the tasks are replaced by three.
    plugin.tables.store(3, Ordering::SeqCst);
    ctx.request_task_reconfiguration();
    let mut tables = Vec::new();
    for _ in 0..500 {
        tables = tables_of(&handle).await;
        if tables.len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(tables, ["t0", "t1", "t2"]);
    assert_eq!(
        plugin.task_starts.load(Ordering::SeqCst),
        5,
        "two tasks at start, three after the change, none for the unchanged plan"
    );
    handle.shutdown().await;
    log.close().await;
}
