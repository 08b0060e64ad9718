//! Bad `plugin.path` input (issue 28): a missing directory and a corrupt jar are clear errors
//! that stop neither the worker nor the other plugins; a connector class found in no jar is
//! refused with a did-you-mean over the discovered Java classes (exit 3); no Java is a clear
//! start-up error (exit 2).

use crate::support;

use support::plugin_jars::plugin_jars;
use support::*;

const VERIFIABLE_SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";

#[test]
fn a_missing_directory_a_corrupt_jar_an_unknown_class_and_no_java_are_clear_errors() {
    let jars = plugin_jars();
    let w = Workdir::new();
    // One location with the Verifiable connectors, one with a truncated jar; a missing one.
    let plugins = w.path("plugins");
    let jar = jars.copy_verifiable(&plugins.join("verifiable"));
    let bytes = std::fs::read(jar).unwrap();
    let broken = w.write("plugins/corrupt/broken.jar", &bytes[..bytes.len() / 3]);
    let missing = w.path("no-such-plugins");
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={},{}\nplugin.host.classpath={}",
        w.path("offsets").display(),
        plugins.display(),
        missing.display(),
        jars.classpath_string()
    ));
    let worker_arg = worker.to_str().unwrap();

    // The worker lists the plugins of the readable jars, and says what it could not read.
    let out = w
        .command(&["plugins", "--worker", worker_arg, "--format", "json"])
        .output()
        .expect("run connect-rs plugins");
    let log = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{log}");
    assert!(stdout(&out).contains(VERIFIABLE_SOURCE), "{}", stdout(&out));
    assert!(
        log.contains(&format!(
            "ERROR Could not get listing for plugin path: {}. Ignoring.",
            missing.display()
        )),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "ERROR Failed to scan {} in {}: java.util.zip.ZipException",
            broken.display(),
            broken.parent().unwrap().display()
        )),
        "{log}"
    );

    // A class in no jar: refused with the discovered class it resembles, exit 3.
    let typo = w.write(
        "typo.properties",
        "name=v\nconnector.class=org.apache.kafka.connect.tools.VerifiableSourceConector\n\
         tasks.max=1\ntopic=t\nthroughput=10\n",
    );
    let out = w
        .command(&["standalone", worker_arg, typo.to_str().unwrap()])
        .output()
        .expect("run connect-rs standalone");
    let log = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{log}");
    assert!(
        log.contains(&format!(
            "connector.class: Failed to find any class that implements Connector and which name \
             matches org.apache.kafka.connect.tools.VerifiableSourceConector. Did you mean \
             '{VERIFIABLE_SOURCE}'?"
        )),
        "{log}"
    );

    // No Java: a start-up error saying where it looked, exit 2.
    let no_bin = w.path("no-bin");
    std::fs::create_dir_all(&no_bin).unwrap();
    let good = w.write(
        "v.properties",
        format!(
            "name=v\nconnector.class={VERIFIABLE_SOURCE}\ntasks.max=1\ntopic=t\nthroughput=10\n"
        ),
    );
    let out = w
        .command(&["standalone", worker_arg, good.to_str().unwrap()])
        .env("PATH", &no_bin)
        .env_remove("JAVA_HOME")
        .output()
        .expect("run connect-rs standalone");
    let log = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{log}");
    assert!(
        log.contains("no Java was found to run the plugin host")
            && log.contains(&format!("no java on PATH ({})", no_bin.display())),
        "{log}"
    );
}
