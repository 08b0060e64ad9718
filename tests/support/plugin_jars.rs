//! Real Java plugins for the plugin host's tests, fetched from Maven Central by
//! `scripts/plugin-jars.sh` (once per machine, into target/plugin-jars/): Debezium's PostgreSQL
//! connector (with `debezium-connect-plugins`, i.e. `ExtractNewRecordState`), Kafka's
//! `VerifiableSourceConnector` / `VerifiableSinkConnector` and `kafka-server-common`, which the
//! Verifiable source task needs on the worker's class path. A test that cannot get them FAILS with
//! the script's reason (no Maven, no network): it never skips.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Where the fetched plugins are.
#[derive(Debug, Clone)]
pub struct PluginJars {
    /// The folder to name in `plugin.path`: one plugin location per subfolder.
    pub plugin_path: PathBuf,
    /// Debezium's PostgreSQL connector plugin folder (inside `plugin_path`).
    pub debezium: PathBuf,
    /// The Verifiable connectors' plugin folder (inside `plugin_path`).
    pub verifiable: PathBuf,
    /// Jars for the worker's class path, not isolated (kafka-server-common).
    pub classpath: Vec<PathBuf>,
    /// Debezium's version (`3.6.1.Final`).
    pub debezium_version: String,
    /// The Kafka version of connect-test-plugins and kafka-server-common (`4.3.1`).
    pub kafka_version: String,
}

impl PluginJars {
    /// `classpath` joined with `:` (for `plugin.host.classpath` or `java -cp`).
    pub fn classpath_string(&self) -> String {
        self.classpath
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    }

    /// Copies the Verifiable plugin folder to `dest` (a folder of its own, for tests that
    /// change its files); returns the jar of the Verifiable connectors there.
    pub fn copy_verifiable(&self, dest: &std::path::Path) -> PathBuf {
        std::fs::create_dir_all(dest).expect("the copy's folder");
        let mut connectors = None;
        for entry in std::fs::read_dir(&self.verifiable).expect("the verifiable plugin folder") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().expect("a file name");
            let copy = dest.join(name);
            std::fs::copy(&path, &copy).expect("copy a Verifiable plugin file");
            if name.to_string_lossy().starts_with("connect-test-plugins") {
                connectors = Some(copy);
            }
        }
        connectors.expect("the jar of the Verifiable connectors")
    }
}

/// Runs `scripts/plugin-jars.sh` (downloads once per machine, then reuses; once per test
/// process); panics with its output when it fails.
pub fn plugin_jars() -> &'static PluginJars {
    static JARS: OnceLock<PluginJars> = OnceLock::new();
    JARS.get_or_init(fetch)
}

fn fetch() -> PluginJars {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/plugin-jars.sh");
    let out = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (is bash installed?)", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "this test needs real Java plugins (Debezium, Kafka's Verifiable connectors), and `{}` \
         failed with {}:\n{stderr}{stdout}",
        script.display(),
        out.status
    );
    let field = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("`{}` printed no {key}:\n{stdout}", script.display()))
    };
    let classpath_dir = PathBuf::from(field("classpath="));
    let mut classpath: Vec<PathBuf> = std::fs::read_dir(&classpath_dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", classpath_dir.display()))
        .map(|e| e.expect("a class path entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jar"))
        .collect();
    classpath.sort();
    assert!(
        !classpath.is_empty(),
        "{} holds no jar (remove target/plugin-jars and run {} again)",
        classpath_dir.display(),
        script.display()
    );
    PluginJars {
        plugin_path: PathBuf::from(field("plugin.path=")),
        debezium: PathBuf::from(field("debezium=")),
        verifiable: PathBuf::from(field("verifiable=")),
        classpath,
        debezium_version: field("debezium.version="),
        kafka_version: field("kafka.version="),
    }
}
