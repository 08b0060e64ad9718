//! The metrics Java plugins register through their context's `pluginMetrics()` (KIP-877), as
//! Prometheus text for `GET /metrics`: each numeric metric of group `plugins` becomes a gauge
//! `kafka_connect_plugins_<name>` (JMX `type=plugins`, the naming rule of `docs/metrics.md`)
//! with its tags (`connector`, `task`, the plugin's own) as labels. Asked of a running plugin
//! host only: a scrape never starts a JVM.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

use super::{MessageType, PluginHost};

/// How long a scrape waits for the plugin host's answer.
const TIMEOUT: Duration = Duration::from_secs(1);

/// One metric of the host's answer.
#[derive(serde::Deserialize)]
struct PluginMetric {
    name: String,
    tags: BTreeMap<String, String>,
    value: f64,
}

/// The plugins' metrics of `host`'s running JVM as Prometheus text; empty when no JVM runs,
/// it registered none, or it did not answer in time.
pub async fn prometheus_text(host: &PluginHost) -> String {
    let Some(conn) = host.current().await else {
        return String::new();
    };
    let asked = tokio::time::timeout(
        TIMEOUT,
        conn.request(MessageType::PLUGIN_METRICS, b"{}".to_vec()),
    );
    let answer = match asked.await {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "The plugin host did not give its plugins' metrics.");
            return String::new();
        }
        Err(_) => return String::new(),
    };
    match serde_json::from_slice::<Vec<PluginMetric>>(&answer) {
        Ok(metrics) => render(metrics),
        Err(e) => {
            tracing::debug!(error = %e, "The plugin host's PLUGIN_METRICS answer cannot be read.");
            String::new()
        }
    }
}

/// `metrics` as gauge families, one `# TYPE` line per family, its samples together.
fn render(metrics: Vec<PluginMetric>) -> String {
    let mut families: BTreeMap<String, Vec<PluginMetric>> = BTreeMap::new();
    for m in metrics {
        families.entry(family_name(&m.name)).or_default().push(m);
    }
    let mut out = String::new();
    for (family, samples) in families {
        let _ = writeln!(out, "# TYPE {family} gauge");
        for m in samples {
            let labels: Vec<String> = m
                .tags
                .iter()
                .map(|(k, v)| format!("{}=\"{}\"", label_name(k), escaped(v)))
                .collect();
            let _ = writeln!(out, "{family}{{{}}} {}", labels.join(","), m.value);
        }
    }
    out
}

/// `kafka_connect_plugins_<name>`, `-` and other characters Prometheus refuses as `_`.
fn family_name(name: &str) -> String {
    format!("kafka_connect_plugins_{}", label_name(name))
}

/// `name` with every character but ASCII letters, digits and `_` replaced by `_` (and a
/// leading digit prefixed).
fn label_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A label value as the text format escapes it.
fn escaped(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_become_gauges_named_by_the_rule_with_their_tags_as_labels() {
        let metric = |name: &str, task: &str, value: f64| PluginMetric {
            name: name.to_owned(),
            tags: [
                ("connector".to_owned(), "c\"1".to_owned()),
                ("task".to_owned(), task.to_owned()),
            ]
            .into(),
            value,
        };
        let text = render(vec![
            metric("records-seen", "0", 3.0),
            metric("lag", "0", 1.5),
            metric("records-seen", "1", 4.0),
        ]);
        assert_eq!(
            text,
            "# TYPE kafka_connect_plugins_lag gauge\n\
             kafka_connect_plugins_lag{connector=\"c\\\"1\",task=\"0\"} 1.5\n\
             # TYPE kafka_connect_plugins_records_seen gauge\n\
             kafka_connect_plugins_records_seen{connector=\"c\\\"1\",task=\"0\"} 3\n\
             kafka_connect_plugins_records_seen{connector=\"c\\\"1\",task=\"1\"} 4\n"
        );
    }
}
