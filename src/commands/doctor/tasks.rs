//! `tasks.max` above what the connector splits its work into: the connector is started with
//! its configuration (placeholders resolved) and asked for `task_configs(tasks.max)`, as the
//! worker does before starting tasks; fewer task configurations than `tasks.max` means the
//! rest are never started (FileStreamSource, for one, always plans one task).

use std::time::Duration;

use connect_api::ConfigMap;

use super::{ConnectorFile, Finding, Severity};
use crate::config::WorkerConfig;
use crate::plugins::ConnectorPlugin;

/// How long a connector may take to start and plan its tasks.
const PLANNING_TIMEOUT: Duration = Duration::from_secs(10);

/// The check's name in findings.
const CHECK: &str = "tasks-max";

/// A warning when the connector plans fewer tasks than `tasks.max`; a note when it could not
/// be asked.
pub async fn check(connector: &ConnectorFile, worker: &WorkerConfig) -> Vec<Finding> {
    let raw = &connector.raw;
    let line = raw.line("tasks.max");
    let class = raw
        .get(crate::config::CONNECTOR_CLASS_CONFIG)
        .unwrap_or_default();
    let note = |why: String| {
        vec![Finding::new(
            Severity::Note,
            CHECK,
            &connector.path,
            format!("Could not ask {class} how many tasks it plans: {why}"),
            "",
        )
        .at("tasks.max", line)]
    };
    let props = match worker.providers().resolve(raw, |_| false) {
        Ok(resolved) => resolved.raw.to_map(),
        Err(problems) => {
            let why: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return note(why.join("; "));
        }
    };
    // Validation passed, so tasks.max is a positive number once resolved.
    let Some(tasks_max) = props
        .get("tasks.max")
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 1)
    else {
        return Vec::new();
    };
    let planned =
        match tokio::time::timeout(PLANNING_TIMEOUT, plan(&connector.plugin, &props, tasks_max))
            .await
        {
            Ok(Ok(n)) => n,
            Ok(Err(e)) => return note(e.to_string()),
            Err(_) => return note(format!("no answer within {}s", PLANNING_TIMEOUT.as_secs())),
        };
    if planned >= tasks_max {
        return Vec::new();
    }
    let idle = tasks_max - planned;
    vec![Finding::new(
        Severity::Warning,
        CHECK,
        &connector.path,
        format!(
            "tasks.max is {tasks_max} but {class} splits this configuration into {planned} \
             task{}: {idle} task{} would never run.",
            if planned == 1 { "" } else { "s" },
            if idle == 1 { "" } else { "s" },
        ),
        format!("Set tasks.max={planned}; more tasks do not make this connector faster."),
    )
    .at("tasks.max", line)]
}

/// How many task configurations the connector gives for `tasks_max`: started, asked, stopped.
async fn plan(
    plugin: &ConnectorPlugin,
    props: &ConfigMap,
    tasks_max: usize,
) -> connect_api::Result<usize> {
    match plugin {
        ConnectorPlugin::Source(p) => {
            let mut connector = p.new_connector();
            connector.start(props).await?;
            let planned = connector.task_configs(tasks_max).map(|t| t.len());
            connector.stop().await?;
            planned
        }
        ConnectorPlugin::Sink(p) => {
            let mut connector = p.new_connector();
            connector.start(props).await?;
            let planned = connector.task_configs(tasks_max).map(|t| t.len());
            connector.stop().await?;
            planned
        }
    }
}
