//! `connect-rs plugins`: the plugins of this binary, as `GET /connector-plugins?connectorsOnly=false`
//! lists them ([`plugin_infos`]); the text form adds each plugin's location (`builtin`, or a
//! Java plugin's jar or directory), the aliases and the config providers.

/// The LOCATION of a built-in plugin.
const BUILTIN: &str = "builtin";

use std::io::Write;

use anyhow::anyhow;

use super::{CommandError, EXIT_STARTUP};
use crate::cli::{OutputFormat, PluginsArgs};
use crate::config::providers::builtin_provider_classes;
use crate::plugins::info::plugin_rows;
use crate::plugins::plugin_infos;
use crate::plugins::PluginRegistry;

/// Runs `plugins`.
///
/// # Errors
/// Exit 2 if the worker file cannot be loaded, its `plugin.path` cannot be scanned, or the
/// JSON body cannot be written.
pub fn run(args: &PluginsArgs) -> Result<(), CommandError> {
    let plugins = match &args.worker {
        Some(path) => {
            super::standalone::load_worker_with_plugins(path, crate::config::WorkerMode::Standalone)
                .map_err(|e| CommandError::new(EXIT_STARTUP, e))?
                .1
        }
        None => PluginRegistry::builtin(),
    };
    let infos = plugin_infos(&plugins, false);
    match args.format {
        OutputFormat::Json => {
            let body = serde_json::to_string(&infos)
                .map_err(|e| CommandError::new(EXIT_STARTUP, anyhow!(e)))?;
            let _ = writeln!(std::io::stdout().lock(), "{body}");
        }
        OutputFormat::Text => {
            let _ = write!(std::io::stdout().lock(), "{}", text(&plugins));
        }
    }
    Ok(())
}

/// One line per plugin: type, class, version (`-` when undefined), location (`builtin`, or
/// the jar or directory of a Java plugin) and aliases, in the REST order, then the config
/// providers (built in, so of the binary's version).
fn text(plugins: &PluginRegistry) -> String {
    let mut rows: Vec<[String; 5]> = plugin_rows(plugins, false)
        .into_iter()
        .map(|(p, location)| {
            let aliases = plugins.aliases(&p.class_name).join(", ");
            [
                p.kind.to_owned(),
                p.class_name,
                p.version.unwrap_or_else(|| "-".to_owned()),
                location.unwrap_or_else(|| BUILTIN.to_owned()),
                aliases,
            ]
        })
        .collect();
    rows.extend(
        builtin_provider_classes()
            .into_iter()
            .map(|(class, aliases)| {
                [
                    "config_provider".to_owned(),
                    class.to_owned(),
                    env!("CARGO_PKG_VERSION").to_owned(),
                    BUILTIN.to_owned(),
                    aliases.join(", "),
                ]
            }),
    );
    let header = [
        "TYPE".to_owned(),
        "CLASS".to_owned(),
        "VERSION".to_owned(),
        "LOCATION".to_owned(),
        "ALIASES".to_owned(),
    ];
    let width = |i: usize| {
        rows.iter()
            .chain(std::iter::once(&header))
            .map(|r| r[i].len())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    std::iter::once(&header)
        .chain(rows.iter())
        .map(|r| {
            format!(
                "{:w0$}  {:w1$}  {:w2$}  {:w3$}  {}",
                r[0], r[1], r[2], r[3], r[4]
            )
            .trim_end()
            .to_owned()
                + "\n"
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::{JavaPluginDesc, JavaPluginKind};

    #[test]
    fn text_shows_builtin_and_java_locations() {
        let plugins = PluginRegistry::builtin().with_java_plugins([JavaPluginDesc {
            class: "io.debezium.connector.postgresql.PostgresConnector".to_owned(),
            kind: JavaPluginKind::from_type_name("source").unwrap(),
            version: "3.6.1.Final".to_owned(),
            location: "/opt/connectors/debezium-connector-postgres".to_owned(),
        }]);
        let out = text(&plugins);
        let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(header, ["TYPE", "CLASS", "VERSION", "LOCATION", "ALIASES"]);
        let fields = |class: &str| -> Vec<String> {
            let line = out
                .lines()
                .find(|l| l.split_whitespace().nth(1) == Some(class))
                .unwrap_or_else(|| panic!("no {class} in {out}"));
            line.split_whitespace().map(str::to_owned).collect()
        };
        assert_eq!(
            fields("io.debezium.connector.postgresql.PostgresConnector"),
            [
                "source",
                "io.debezium.connector.postgresql.PostgresConnector",
                "3.6.1.Final",
                "/opt/connectors/debezium-connector-postgres",
                "Postgres,",
                "PostgresConnector"
            ]
        );
        assert_eq!(
            fields("org.apache.kafka.connect.file.FileStreamSourceConnector")[3],
            "builtin"
        );
        assert_eq!(
            fields("org.apache.kafka.common.config.provider.FileConfigProvider")[3],
            "builtin"
        );
    }
}
