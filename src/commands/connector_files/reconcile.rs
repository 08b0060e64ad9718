//! Compares the connector files with what was last applied from them and applies the
//! difference through the herder, as REST would: a changed file is a `PUT
//! /connectors/{name}/config` (tasks restarted with the new configuration, offsets kept), a
//! removed file a `DELETE /connectors/{name}`, a changed `name` a delete of the old connector
//! and a create of the new one. An invalid file changes nothing: its problems are logged and the
//! running configuration is kept. Connectors that no file defined (created over REST) are never
//! replaced or deleted.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use connect_api::ConfigMap;
use tracing::{debug, error, info};

use super::{load, Sources, ValidFile};
use crate::config::WorkerConfig;
use crate::herder::validate::before_write::check_java_connector;
use crate::herder::{HerderError, HerderHandle};
use crate::plugins::PluginRegistry;

/// What was last read from a connector file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Its content.
    pub bytes: Vec<u8>,
    /// The connector applied from it, if any (none while it has only ever been invalid).
    pub connector: Option<String>,
}

/// What a rescan found in a file that is present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// The same bytes as last time.
    Unchanged,
    /// New bytes defining a valid connector.
    Valid {
        /// Its `name`.
        name: String,
        /// Its configuration as written (placeholders not resolved), as REST would store it.
        config: ConfigMap,
    },
    /// New bytes with problems (every one, naming the file, line and key).
    Invalid(String),
}

/// One present file in a rescan.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The file.
    pub path: PathBuf,
    /// Its content now.
    pub bytes: Vec<u8>,
    /// What changed.
    pub seen: Seen,
}

/// How a PUT came about, for its log line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change {
    /// The file is new (to the watcher).
    pub added: bool,
    /// The file defined this connector already: its configuration is updated.
    pub updated: bool,
    /// The file defined another connector (its `name` changed): that name, and whether that
    /// connector is deleted (it is not when another file now defines it).
    pub renamed_from: Option<(String, bool)>,
    /// Another file defined this connector until now (a file renamed or moved).
    pub taken_from: Option<PathBuf>,
}

impl Change {
    /// The log line: `Connector file changed: applied.` and the like.
    pub fn describe(&self, connector: &str) -> String {
        let mut out = String::from(if self.added {
            "Connector file added: "
        } else {
            "Connector file changed: "
        });
        if let Some((old, deleted)) = &self.renamed_from {
            out.push_str(&format!("name changed from {old} to {connector}; "));
            if *deleted {
                out.push_str(&format!("connector {old} deleted, "));
            } else {
                out.push_str(&format!("{old} is now defined by another file, "));
            }
        }
        if self.updated {
            out.push_str("applied.");
        } else if let Some(file) = &self.taken_from {
            out.push_str(&format!(
                "connector {connector} (defined by {} until now) applied.",
                file.display()
            ));
        } else {
            out.push_str(&format!("connector {connector} created."));
        }
        out
    }
}

/// One step of applying a rescan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Delete the connector of a removed file, or the old connector of a renamed one.
    Delete {
        /// The file.
        file: PathBuf,
        /// The connector.
        connector: String,
        /// The new name, when the file was renamed rather than removed.
        renamed_to: Option<String>,
    },
    /// Create or update a connector.
    Put {
        /// The file.
        file: PathBuf,
        /// The connector.
        connector: String,
        /// Its configuration.
        config: ConfigMap,
        /// Whether an existing connector may be replaced: only one a file defined.
        replace: bool,
        /// Why.
        change: Change,
    },
    /// Log an invalid file; nothing changes.
    Refuse {
        /// The file.
        file: PathBuf,
        /// The connector that keeps running with its previous configuration, if any.
        running: Option<String>,
        /// Every problem.
        problems: String,
    },
}

/// The actions that bring the worker in line with `observed` (every present file; a known file
/// missing from it was removed), and what is known afterwards if every action succeeds.
/// Deletions come first, so a connector moving from one file to another is not refused.
pub fn plan(
    known: &BTreeMap<PathBuf, Known>,
    observed: &[Observation],
) -> (Vec<Action>, BTreeMap<PathBuf, Known>) {
    let previous = |path: &Path| known.get(path).and_then(|k| k.connector.clone());
    let owned: HashSet<&str> = known
        .values()
        .filter_map(|k| k.connector.as_deref())
        .collect();
    // Which file defines each name after this rescan: unchanged files keep theirs, then
    // changed files in order; a name already defined elsewhere is refused.
    let mut claims: HashMap<String, PathBuf> = HashMap::new();
    for o in observed.iter().filter(|o| o.seen == Seen::Unchanged) {
        if let Some(c) = previous(&o.path) {
            claims.entry(c).or_insert_with(|| o.path.clone());
        }
    }
    let mut refusals = Vec::new();
    let mut puts: Vec<(&Observation, &String, &ConfigMap)> = Vec::new();
    for o in observed {
        match &o.seen {
            Seen::Unchanged => {}
            Seen::Invalid(problems) => refusals.push((o, problems.clone())),
            Seen::Valid { name, config } => match claims.get(name) {
                Some(other) if *other != o.path => refusals.push((
                    o,
                    format!(
                        "Connector name '{name}' is already used by {}. Connector names must be \
                         unique; rename one of them.",
                        other.display()
                    ),
                )),
                _ => {
                    claims.insert(name.clone(), o.path.clone());
                    puts.push((o, name, config));
                }
            },
        }
    }

    let mut actions = Vec::new();
    let present: HashSet<&Path> = observed.iter().map(|o| o.path.as_path()).collect();
    for (path, k) in known {
        if let Some(c) = &k.connector {
            if !present.contains(path.as_path()) && !claims.contains_key(c) {
                actions.push(Action::Delete {
                    file: path.clone(),
                    connector: c.clone(),
                    renamed_to: None,
                });
            }
        }
    }
    for (o, name, _) in &puts {
        if let Some(old) = previous(&o.path) {
            if old != **name && !claims.contains_key(&old) {
                actions.push(Action::Delete {
                    file: o.path.clone(),
                    connector: old,
                    renamed_to: Some((*name).clone()),
                });
            }
        }
    }
    let mut next = BTreeMap::new();
    for (o, problems) in refusals {
        // The previous connector keeps running, unless another file now defines it.
        let running = previous(&o.path).filter(|c| !claims.contains_key(c));
        next.insert(
            o.path.clone(),
            Known {
                bytes: o.bytes.clone(),
                connector: running.clone(),
            },
        );
        actions.push(Action::Refuse {
            file: o.path.clone(),
            running,
            problems,
        });
    }
    for (o, name, config) in puts {
        let own = previous(&o.path);
        let change = Change {
            added: !known.contains_key(&o.path),
            updated: own.as_deref() == Some(name.as_str()),
            renamed_from: own
                .filter(|c| c != name)
                .map(|c| (c.clone(), !claims.contains_key(&c))),
            taken_from: known
                .iter()
                .find(|(p, k)| **p != o.path && k.connector.as_deref() == Some(name.as_str()))
                .map(|(p, _)| p.clone()),
        };
        next.insert(
            o.path.clone(),
            Known {
                bytes: o.bytes.clone(),
                connector: Some(name.clone()),
            },
        );
        actions.push(Action::Put {
            file: o.path.clone(),
            connector: name.clone(),
            config: config.clone(),
            replace: owned.contains(name.as_str()),
            change,
        });
    }
    for o in observed.iter().filter(|o| o.seen == Seen::Unchanged) {
        next.insert(
            o.path.clone(),
            Known {
                bytes: o.bytes.clone(),
                connector: previous(&o.path),
            },
        );
    }
    (actions, next)
}

/// The state of the connector files and the means to read and apply them.
pub struct Reconciler {
    sources: Sources,
    known: BTreeMap<PathBuf, Known>,
    worker: Arc<WorkerConfig>,
    plugins: Arc<PluginRegistry>,
}

impl Reconciler {
    /// Starts from the files validated and started at start-up.
    pub fn new(
        sources: Sources,
        started: &[ValidFile],
        worker: Arc<WorkerConfig>,
        plugins: Arc<PluginRegistry>,
    ) -> Self {
        let known = started
            .iter()
            .map(|f| {
                (
                    f.path.clone(),
                    Known {
                        bytes: f.bytes.clone(),
                        connector: Some(f.spec.name.clone()),
                    },
                )
            })
            .collect();
        Self {
            sources,
            known,
            worker,
            plugins,
        }
    }

    /// The arguments this reconciler reads.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// Reads the connector files again and applies what changed since the last rescan.
    pub async fn rescan(&mut self, herder: &HerderHandle) {
        let files = match self.sources.list() {
            Ok(files) => files,
            Err(problems) => {
                error!(
                    "Connector files not rescanned; the running connectors are kept:\n{}",
                    problems.join("\n")
                );
                return;
            }
        };
        let observed = files
            .into_iter()
            .filter_map(|path| self.observe(path))
            .collect::<Vec<_>>();
        let (actions, mut next) = plan(&self.known, &observed);
        for action in actions {
            if herder.is_closed() {
                return;
            }
            let action = match self.refused_by_plugin(action).await {
                Ok(action) => action,
                Err((refusal, file, running)) => {
                    apply(herder, refusal).await;
                    if let Some(k) = next.get_mut(&file) {
                        k.connector = running;
                    }
                    continue;
                }
            };
            if let Some((file, connector)) = apply(herder, action).await {
                if let Some(k) = next.get_mut(&file) {
                    k.connector = connector;
                }
            }
        }
        self.known = next;
    }

    /// `action`, unless it puts a Java connector's configuration that its plugin finds invalid
    /// (validated first, as REST creates and updates are): then the refusal to apply instead,
    /// with its file and the connector that keeps running.
    async fn refused_by_plugin(
        &self,
        action: Action,
    ) -> Result<Action, (Action, PathBuf, Option<String>)> {
        let Action::Put {
            file,
            connector,
            config,
            replace,
            change,
        } = action
        else {
            return Ok(action);
        };
        let converters = self.worker.converter_classes();
        match check_java_connector(&self.plugins, &converters, self.worker.providers(), &config)
            .await
        {
            Ok(()) => Ok(Action::Put {
                file,
                connector,
                config,
                replace,
                change,
            }),
            Err(e) => {
                let running = change.updated.then_some(connector);
                let refusal = Action::Refuse {
                    file: file.clone(),
                    running: running.clone(),
                    problems: e.to_string(),
                };
                Err((refusal, file, running))
            }
        }
    }

    /// Reads `path`: `None` when it is gone (or could not be read and defined nothing yet).
    fn observe(&self, path: PathBuf) -> Option<Observation> {
        let known = self.known.get(&path);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                error!(
                    file = %path.display(),
                    "Cannot read connector file {}: {e}; nothing is changed for it.",
                    path.display()
                );
                let bytes = known?.bytes.clone();
                return Some(Observation {
                    path,
                    bytes,
                    seen: Seen::Unchanged,
                });
            }
        };
        if known.is_some_and(|k| k.bytes == bytes) {
            return Some(Observation {
                path,
                bytes,
                seen: Seen::Unchanged,
            });
        }
        let loaded = load(&path, bytes, &self.worker, &self.plugins);
        let seen = match loaded.spec {
            Ok(spec) => Seen::Valid {
                name: spec.name,
                config: spec.raw_props,
            },
            Err(problems) => Seen::Invalid(problems),
        };
        Some(Observation {
            path,
            bytes: loaded.bytes,
            seen,
        })
    }
}

/// Applies one action and logs it. When a PUT failed, returns its file with the connector it
/// still defines (the old one for an update the herder refused, none otherwise).
async fn apply(herder: &HerderHandle, action: Action) -> Option<(PathBuf, Option<String>)> {
    match action {
        Action::Delete {
            file,
            connector,
            renamed_to,
        } => {
            let f = file.display();
            match (herder.delete_connector(&connector).await, renamed_to) {
                (Ok(()), None) => {
                    info!(file = %f, connector = %connector, "Connector file removed: connector deleted.");
                }
                (Ok(()), Some(_)) => {
                    debug!(file = %f, connector = %connector, "Connector renamed in its file: old connector deleted.")
                }
                (Err(HerderError::NotFound(_)), _) => info!(
                    file = %f,
                    connector = %connector,
                    "Connector file removed: its connector was already deleted (over REST)."
                ),
                (Err(e), _) => error!(
                    file = %f,
                    connector = %connector,
                    "Connector file {f} no longer defines connector {connector}, but it could not be deleted: {e}"
                ),
            }
            None
        }
        Action::Put {
            file,
            connector,
            config,
            replace,
            change,
        } => {
            let f = file.display();
            match herder
                .put_connector_config(&connector, config, replace)
                .await
            {
                Ok(_) => {
                    info!(file = %f, connector = %connector, "{}", change.describe(&connector));
                    None
                }
                Err(HerderError::Conflict(_)) if !replace => {
                    error!(
                        file = %f,
                        connector = %connector,
                        "Connector file {f} defines connector {connector}, which exists already and was not \
                         defined by a connector file (it was created over REST); the file is not applied. \
                         Delete that connector or rename the one in the file."
                    );
                    Some((file, None))
                }
                Err(e) if herder.is_closed() => {
                    debug!(file = %f, connector = %connector, error = %e, "Connector file change not applied: the worker is stopping.");
                    None
                }
                Err(e) => {
                    error!(
                        file = %f,
                        connector = %connector,
                        "Connector file {f} changed but connector {connector} could not be updated: {e}"
                    );
                    let still = change.updated.then_some(connector);
                    Some((file, still))
                }
            }
        }
        Action::Refuse {
            file,
            running,
            problems,
        } => {
            let f = file.display();
            match running {
                Some(c) => error!(
                    file = %f,
                    connector = %c,
                    "Connector file {f} changed but is invalid; connector {c} keeps its running configuration.\n{problems}"
                ),
                None => error!(
                    file = %f,
                    "Connector file {f} is invalid; no connector is created from it.\n{problems}"
                ),
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines() {
        let updated = Change {
            updated: true,
            ..Change::default()
        };
        assert_eq!(updated.describe("c"), "Connector file changed: applied.");
        let added = Change {
            added: true,
            ..Change::default()
        };
        assert_eq!(
            added.describe("c"),
            "Connector file added: connector c created."
        );
        let renamed = Change {
            renamed_from: Some(("a".into(), true)),
            ..Change::default()
        };
        assert_eq!(
            renamed.describe("b"),
            "Connector file changed: name changed from a to b; connector a deleted, connector b created."
        );
        let moved = Change {
            added: true,
            taken_from: Some("x/old.properties".into()),
            ..Change::default()
        };
        assert_eq!(
            moved.describe("c"),
            "Connector file added: connector c (defined by x/old.properties until now) applied."
        );
    }

    fn config(name: &str, v: &str) -> ConfigMap {
        let mut c = ConfigMap::new();
        c.insert("name".into(), name.into());
        c.insert("file".into(), v.into());
        c
    }

    fn known(entries: &[(&str, &str, Option<&str>)]) -> BTreeMap<PathBuf, Known> {
        entries
            .iter()
            .map(|(p, b, c)| {
                (
                    PathBuf::from(p),
                    Known {
                        bytes: b.as_bytes().to_vec(),
                        connector: c.map(str::to_owned),
                    },
                )
            })
            .collect()
    }

    fn seen(path: &str, bytes: &str, seen: Seen) -> Observation {
        Observation {
            path: PathBuf::from(path),
            bytes: bytes.as_bytes().to_vec(),
            seen,
        }
    }

    fn valid(name: &str, v: &str) -> Seen {
        Seen::Valid {
            name: name.into(),
            config: config(name, v),
        }
    }

    #[test]
    fn nothing_changed_nothing_done() {
        let k = known(&[("a", "1", Some("a"))]);
        let (actions, next) = plan(&k, &[seen("a", "1", Seen::Unchanged)]);
        assert!(actions.is_empty());
        assert_eq!(next, k);
    }

    #[test]
    fn an_edit_replaces_the_connector() {
        let k = known(&[("a", "1", Some("a"))]);
        let (actions, next) = plan(&k, &[seen("a", "2", valid("a", "x"))]);
        assert_eq!(
            actions,
            [Action::Put {
                file: "a".into(),
                connector: "a".into(),
                config: config("a", "x"),
                replace: true,
                change: Change {
                    updated: true,
                    ..Change::default()
                },
            }]
        );
        assert_eq!(next, known(&[("a", "2", Some("a"))]));
    }

    #[test]
    fn an_invalid_edit_keeps_the_running_connector_and_is_not_logged_twice() {
        let k = known(&[("a", "1", Some("a"))]);
        let (actions, next) = plan(&k, &[seen("a", "2", Seen::Invalid("bad".into()))]);
        assert_eq!(
            actions,
            [Action::Refuse {
                file: "a".into(),
                running: Some("a".into()),
                problems: "bad".into(),
            }]
        );
        assert_eq!(next, known(&[("a", "2", Some("a"))]));
    }

    #[test]
    fn a_removed_file_deletes_its_connector() {
        let k = known(&[("a", "1", Some("a")), ("b", "1", Some("b"))]);
        let (actions, next) = plan(&k, &[seen("b", "1", Seen::Unchanged)]);
        assert_eq!(
            actions,
            [Action::Delete {
                file: "a".into(),
                connector: "a".into(),
                renamed_to: None,
            }]
        );
        assert_eq!(next, known(&[("b", "1", Some("b"))]));
    }

    #[test]
    fn a_new_file_creates_without_replacing_a_rest_connector() {
        let (actions, _) = plan(&BTreeMap::new(), &[seen("n", "1", valid("n", "x"))]);
        assert_eq!(
            actions,
            [Action::Put {
                file: "n".into(),
                connector: "n".into(),
                config: config("n", "x"),
                replace: false,
                change: Change {
                    added: true,
                    ..Change::default()
                },
            }]
        );
    }

    #[test]
    fn a_renamed_connector_is_deleted_then_created() {
        let k = known(&[("a", "1", Some("old"))]);
        let (actions, next) = plan(&k, &[seen("a", "2", valid("new", "x"))]);
        assert_eq!(
            actions,
            [
                Action::Delete {
                    file: "a".into(),
                    connector: "old".into(),
                    renamed_to: Some("new".into()),
                },
                Action::Put {
                    file: "a".into(),
                    connector: "new".into(),
                    config: config("new", "x"),
                    replace: false,
                    change: Change {
                        renamed_from: Some(("old".into(), true)),
                        ..Change::default()
                    },
                },
            ]
        );
        assert_eq!(next, known(&[("a", "2", Some("new"))]));
    }

    #[test]
    fn a_name_taken_by_another_file_is_refused() {
        let k = known(&[("a", "1", Some("a")), ("b", "1", Some("b"))]);
        let (actions, next) = plan(
            &k,
            &[
                seen("a", "1", Seen::Unchanged),
                seen("b", "2", valid("a", "x")),
            ],
        );
        assert!(
            matches!(&actions[..], [Action::Refuse { file, running: Some(r), problems }]
                if file == Path::new("b") && r == "b" && problems.contains("already used by a")),
            "{actions:?}"
        );
        assert_eq!(next, known(&[("a", "1", Some("a")), ("b", "2", Some("b"))]));
    }

    #[test]
    fn a_connector_moving_to_another_file_is_replaced_not_deleted() {
        let k = known(&[("a", "1", Some("c"))]);
        let (actions, next) = plan(&k, &[seen("b", "1", valid("c", "x"))]);
        assert_eq!(
            actions,
            [Action::Put {
                file: "b".into(),
                connector: "c".into(),
                config: config("c", "x"),
                replace: true,
                change: Change {
                    added: true,
                    taken_from: Some("a".into()),
                    ..Change::default()
                },
            }]
        );
        assert_eq!(next, known(&[("b", "1", Some("c"))]));
    }
}
