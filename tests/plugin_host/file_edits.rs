//! A watched connector file's edit of a Java connector is validated by its plugin before it is
//! applied, as a REST update is: an edit the plugin finds invalid is refused with Kafka's message
//! and the connector keeps its running configuration.

use std::time::Duration;

use crate::support;
use support::rest::start;
use support::*;

const WAIT: Duration = Duration::from_secs(60);

#[test]
fn an_edit_a_java_connector_finds_invalid_is_refused_and_the_running_configuration_kept() {
    let w = Workdir::new();
    let classes = crate::scan::build_fixture(w.dir.path(), "connector", "connector", |s| s);
    support::java::jar(&classes, &w.path("plugins/fixture/connector.jar"));
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan",
        w.path("offsets").display(),
        w.path("plugins").display()
    ));
    let file = "name=fx\nconnector.class=fixture.FixtureSourceConnector\ntasks.max=1\n\
                fixture.topic=t\n";
    let conn = w.write("fx.properties", file);
    let running = start(&w, &[&worker, &conn]);
    wait_for("fx to run", WAIT, || {
        let r = running.client.get("/connectors/fx/status");
        r.status == 200 && r.json()["connector"]["state"] == "RUNNING"
    });

    // fixture.batch.size must be at least 1 (the connector's ConfigDef, in Java).
    w.write("fx.properties", format!("{file}fixture.batch.size=0\n"));
    wait_for("the edit to be refused", WAIT, || {
        let log = w.log();
        log.contains("changed but is invalid; connector fx keeps its running configuration")
            && log.contains("Invalid value 0 for configuration fixture.batch.size")
    });
    let config = running.client.get("/connectors/fx/config").json();
    assert_eq!(
        config["fixture.batch.size"],
        serde_json::Value::Null,
        "{config}"
    );
    assert_eq!(config["fixture.topic"], "t", "{config}");
}
