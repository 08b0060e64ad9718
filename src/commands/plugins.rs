//! `connect-rs plugins`: the plugins of this binary, as `GET /connector-plugins?connectorsOnly=false`
//! lists them ([`plugin_infos`]); the text form adds the aliases and the config providers.

use std::io::Write;

use anyhow::anyhow;

use super::{CommandError, EXIT_STARTUP};
use crate::cli::{OutputFormat, PluginsArgs};
use crate::config::providers::builtin_provider_classes;
use crate::plugins::plugin_infos;
use crate::plugins::PluginRegistry;

/// Runs `plugins`.
///
/// # Errors
/// Exit 2 if the JSON body cannot be written (cannot happen with the built-in plugins).
pub fn run(args: &PluginsArgs) -> Result<(), CommandError> {
    let plugins = PluginRegistry::builtin();
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

/// One line per plugin: type, class, version (`-` when undefined) and aliases, in the REST
/// order, then the config providers (built in, so of the binary's version).
fn text(plugins: &PluginRegistry) -> String {
    let mut rows: Vec<[String; 4]> = plugin_infos(plugins, false)
        .into_iter()
        .map(|p| {
            let aliases = plugins.aliases(&p.class_name).join(", ");
            [
                p.kind.to_owned(),
                p.class_name,
                p.version.unwrap_or_else(|| "-".to_owned()),
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
                    aliases.join(", "),
                ]
            }),
    );
    let header = [
        "TYPE".to_owned(),
        "CLASS".to_owned(),
        "VERSION".to_owned(),
        "ALIASES".to_owned(),
    ];
    let width = |i: usize| {
        rows.iter()
            .chain(std::iter::once(&header))
            .map(|r| r[i].len())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    std::iter::once(&header)
        .chain(rows.iter())
        .map(|r| {
            format!("{:w0$}  {:w1$}  {:w2$}  {}", r[0], r[1], r[2], r[3])
                .trim_end()
                .to_owned()
                + "\n"
        })
        .collect()
}
