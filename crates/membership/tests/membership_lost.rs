//! A member that cannot heartbeat (its broker is down) reports `MembershipLost` before the
//! coordinator could have expired its session, so its work stops in time.

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use connect_membership::assignor::ConfigSnapshot;
use connect_membership::{ClusterView, GroupMember, MemberConfig, MemberEvent};
use tokio::time::timeout;

struct OneConnector;

#[async_trait::async_trait]
impl ClusterView for OneConnector {
    fn config_offset(&self) -> i64 {
        0
    }
    async fn snapshot(&self, _max: i64) -> ConfigSnapshot {
        ConfigSnapshot {
            offset: 0,
            connectors: BTreeMap::from([("a".into(), 2)]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn membership_is_lost_before_the_session_could_expire() {
    // A broker of its own: this test stops it.
    let instance = "membership-outage";
    let bootstrap = support::field(&support::harness(instance, "start", &[]), "bootstrap");
    let mut config = MemberConfig::new(&bootstrap, &support::unique("lost"), "http://w:8083/");
    config.session_timeout = Duration::from_secs(8);
    config.heartbeat_interval = Duration::from_millis(500);
    let session = config.session_timeout;
    let (member, mut events) = GroupMember::join(config, Arc::new(OneConnector)).expect("join");

    let assigned = timeout(Duration::from_secs(60), events.recv())
        .await
        .expect("an assignment within 60 s")
        .expect("event");
    let MemberEvent::Assigned(a) = assigned else {
        panic!("expected an assignment, got {assigned:?}");
    };
    assert_eq!(a.assignment.len(), 3, "{a:?}");

    // Heartbeats keep the assignment valid while the broker is up.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        events.try_recv().is_err(),
        "no event while heartbeats succeed"
    );

    let before_pause = Instant::now();
    tokio::task::spawn_blocking(move || support::harness(instance, "pause", &[]))
        .await
        .expect("pause");
    // The last acknowledged heartbeat was sent at most one interval before the pause began;
    // the coordinator could expire the session `session` after it: the member must say so first.
    let event = timeout(session, events.recv())
        .await
        .expect("MembershipLost before the session timeout")
        .expect("event");
    assert!(
        matches!(event, MemberEvent::MembershipLost { .. }),
        "expected MembershipLost, got {event:?}"
    );
    assert!(
        before_pause.elapsed() < session,
        "{:?}",
        before_pause.elapsed()
    );
    member.abort();
}
