//! Group membership over the harness's secure listeners: SASL_PLAINTEXT with PLAIN, SASL_SSL
//! with SCRAM-SHA-512, SSL with a client certificate; a wrong password fails without showing it.

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use connect_membership::assignor::ConfigSnapshot;
use connect_membership::connection::Connection;
use connect_membership::security::{SaslCredentials, SaslMechanism, Security, TlsSettings};
use connect_membership::{ClusterView, GroupMember, MemberConfig, MemberEvent, MembershipError};
use openssl::pkcs12::Pkcs12;
use openssl::ssl::{SslConnector, SslMethod};
use tokio::time::timeout;

/// The secure broker's state (`KAFKA_HARNESS_SECURE=1`, instance `secure`).
fn secure_state() -> &'static String {
    static STATE: OnceLock<String> = OnceLock::new();
    STATE.get_or_init(|| {
        support::harness("secure", "start", &[("KAFKA_HARNESS_SECURE", "1")]);
        let path = support::repo_dir().join("target/kafka-harness/instances/secure/state");
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    })
}

fn get(key: &str) -> String {
    support::field(secure_state(), key)
}

fn tls(client_cert: bool) -> TlsSettings {
    let dir = PathBuf::from(get("tls.dir"));
    let mut builder = SslConnector::builder(SslMethod::tls_client()).expect("connector");
    builder.set_ca_file(dir.join("ca.pem")).expect("ca.pem");
    if client_cert {
        let der = std::fs::read(dir.join("client.p12")).expect("client.p12");
        let parsed = Pkcs12::from_der(&der)
            .expect("pkcs12")
            .parse2(&get("tls.password"))
            .expect("client.p12 password");
        builder
            .set_certificate(parsed.cert.as_ref().expect("cert"))
            .expect("cert");
        builder
            .set_private_key(parsed.pkey.as_ref().expect("key"))
            .expect("key");
    }
    TlsSettings {
        connector: builder.build(),
        verify_hostname: true,
    }
}

fn sasl(mechanism: SaslMechanism, password: &str) -> SaslCredentials {
    SaslCredentials {
        mechanism,
        username: get("sasl.user"),
        password: password.to_owned(),
        unsecured_jwt: None,
    }
}

struct OneConnector;

#[async_trait::async_trait]
impl ClusterView for OneConnector {
    fn config_offset(&self) -> i64 {
        0
    }
    async fn snapshot(&self, _max: i64) -> ConfigSnapshot {
        ConfigSnapshot {
            offset: 0,
            connectors: BTreeMap::from([("a".into(), 1)]),
        }
    }
}

/// A member joins over `bootstrap` with `security` and gets the connector and its task.
async fn joins(bootstrap: &str, security: Security) {
    let mut config = MemberConfig::new(bootstrap, &support::unique("secure"), "http://w:8083/");
    config.security = security;
    config.session_timeout = Duration::from_secs(6);
    config.heartbeat_interval = Duration::from_millis(500);
    let (member, mut events) = GroupMember::join(config, Arc::new(OneConnector)).expect("join");
    let event = timeout(Duration::from_secs(60), events.recv())
        .await
        .expect("an assignment within 60 s")
        .expect("event");
    let MemberEvent::Assigned(a) = event else {
        panic!("expected an assignment, got {event:?}");
    };
    assert!(a.is_leader);
    assert_eq!(a.assignment.len(), 2, "{a:?}");
    member.leave().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_over_sasl_plaintext_with_plain() {
    let password = get("sasl.password");
    joins(
        &get("sasl_plaintext"),
        Security {
            tls: None,
            sasl: Some(sasl(SaslMechanism::Plain, &password)),
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_over_sasl_ssl_with_scram_sha_512() {
    let password = get("sasl.password");
    joins(
        &get("sasl_ssl"),
        Security {
            tls: Some(tls(false)),
            sasl: Some(sasl(SaslMechanism::ScramSha512, &password)),
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_over_ssl_with_a_client_certificate() {
    joins(
        &get("ssl"),
        Security {
            tls: Some(tls(true)),
            sasl: None,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_or_an_untrusted_broker_fails_without_showing_the_password() {
    let wrong = "wrong-Pa55word-xyz";
    for mechanism in [SaslMechanism::Plain, SaslMechanism::ScramSha512] {
        let security = Security {
            tls: None,
            sasl: Some(sasl(mechanism, wrong)),
        };
        let err = Connection::connect(
            &get("sasl_plaintext"),
            "t",
            Duration::from_secs(30),
            &security,
        )
        .await
        .expect_err("a wrong password must fail");
        let text = err.to_string();
        assert!(
            matches!(err, MembershipError::Auth(_)),
            "{mechanism:?}: {text}"
        );
        assert!(!text.contains(wrong), "{text}");
    }
    // The broker's certificate is not signed by a trusted CA: the handshake fails.
    let untrusted = TlsSettings {
        connector: SslConnector::builder(SslMethod::tls_client())
            .expect("connector")
            .build(),
        verify_hostname: true,
    };
    let err = Connection::connect(
        &get("sasl_ssl"),
        "t",
        Duration::from_secs(30),
        &Security {
            tls: Some(untrusted),
            sasl: None,
        },
    )
    .await
    .expect_err("an untrusted certificate must fail");
    assert!(err.to_string().contains("certificate"), "{err}");
}
