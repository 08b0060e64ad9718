//! The client over real sockets: errors name the URL; https with the worker's truststore and
//! Kafka's host name check.

use std::net::SocketAddr;
use std::sync::Arc;

use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::ssl::{SslAcceptor, SslMethod};
use openssl::x509::extension::SubjectAlternativeName;
use openssl::x509::{X509NameBuilder, X509};

use super::*;

#[tokio::test]
async fn invalid_urls_are_named() {
    let client = RestClient::default();
    for url in ["ftp://h:1/", "/relative", "http://"] {
        let e = client
            .send(Method::GET, url, HeaderMap::new(), Bytes::new())
            .await
            .unwrap_err();
        assert!(matches!(e, ClientError::InvalidUrl { .. }), "{url}: {e}");
        assert!(e.to_string().contains(url), "{e}");
    }
}

#[tokio::test]
async fn refused_connections_name_the_url() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://{addr}/connectors");
    let e = RestClient::default()
        .send(Method::GET, &url, HeaderMap::new(), Bytes::new())
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Connect { .. }), "{e}");
    assert!(e.to_string().contains(&url), "{e}");
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}/");
    let e = RestClient::default()
        .with_timeout(Duration::from_millis(200))
        .send(Method::GET, &url, HeaderMap::new(), Bytes::new())
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Timeout { .. }), "{e}");
    drop(listener);
}

/// A self-signed certificate for `cn`, valid for the IP `san` when given.
fn key_and_cert(cn: &str, san: Option<&str>) -> (PKey<Private>, X509) {
    let key = PKey::ec_gen("prime256v1").unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", cn).unwrap();
    let name = name.build();
    let mut b = X509::builder().unwrap();
    b.set_version(2).unwrap();
    b.set_subject_name(&name).unwrap();
    b.set_issuer_name(&name).unwrap();
    b.set_pubkey(&key).unwrap();
    b.set_not_before(&Asn1Time::days_from_now(0).unwrap())
        .unwrap();
    b.set_not_after(&Asn1Time::days_from_now(1).unwrap())
        .unwrap();
    if let Some(ip) = san {
        let ext = SubjectAlternativeName::new()
            .ip(ip)
            .build(&b.x509v3_context(None, None))
            .unwrap();
        b.append_extension(ext).unwrap();
    }
    b.sign(&key, MessageDigest::sha256()).unwrap();
    (key, b.build())
}

/// An https server answering `{"ok": true}` with `cert`.
async fn https_server(
    key: &PKey<Private>,
    cert: &X509,
) -> (SocketAddr, axum_server::Handle<SocketAddr>) {
    use axum_server::tls_openssl::{OpenSSLAcceptor, OpenSSLConfig};
    let mut acceptor = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).unwrap();
    acceptor.set_private_key(key).unwrap();
    acceptor.set_certificate(cert).unwrap();
    let acceptor = Arc::new(acceptor.build());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let app =
        axum::Router::new().fallback(|| async { axum::Json(serde_json::json!({"ok": true})) });
    let handle = axum_server::Handle::<SocketAddr>::new();
    let server = axum_server::from_tcp(listener)
        .unwrap()
        .acceptor(OpenSSLAcceptor::new(OpenSSLConfig::from_acceptor(acceptor)))
        .handle(handle.clone());
    tokio::spawn(server.serve(app.into_make_service()));
    (addr, handle)
}

fn trusting(cert: &X509, extra: &[(&str, &str)]) -> RestClient {
    let pem = String::from_utf8(cert.to_pem().unwrap()).unwrap();
    let mut ssl = ConfigMap::from([
        ("ssl.truststore.type".to_owned(), "PEM".to_owned()),
        ("ssl.truststore.certificates".to_owned(), pem),
    ]);
    for (k, v) in extra {
        ssl.insert((*k).to_owned(), (*v).to_owned());
    }
    RestClient::with_tls_settings(ssl, "listeners.https.")
}

async fn get(client: &RestClient, url: &str) -> Result<ClientResponse, ClientError> {
    client
        .send(Method::GET, url, HeaderMap::new(), Bytes::new())
        .await
}

#[tokio::test]
async fn https_targets_are_checked_against_the_truststore_and_the_host_name() {
    let (key, cert) = key_and_cert("worker-1", Some("127.0.0.1"));
    let (addr, _server) = https_server(&key, &cert).await;
    let url = format!("https://{addr}/connectors");
    let r = get(&trusting(&cert, &[]), &url).await.unwrap();
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(&r.body[..], br#"{"ok":true}"#);

    // Not in the truststore (the system's CAs do not know it): refused, naming the URL.
    let e = get(&RestClient::default(), &url).await.unwrap_err();
    assert!(matches!(e, ClientError::Tls { .. }), "{e}");
    assert!(e.to_string().contains(&url), "{e}");
}

#[tokio::test]
async fn the_host_name_check_follows_endpoint_identification() {
    let (key, cert) = key_and_cert("someone-else", None);
    let (addr, _server) = https_server(&key, &cert).await;
    let url = format!("https://{addr}/");
    let e = get(&trusting(&cert, &[]), &url).await.unwrap_err();
    assert!(matches!(e, ClientError::Tls { .. }), "{e}");
    let no_check = trusting(&cert, &[("ssl.endpoint.identification.algorithm", "")]);
    assert_eq!(get(&no_check, &url).await.unwrap().status, StatusCode::OK);
}

#[tokio::test]
async fn unusable_tls_settings_name_the_key() {
    let client = RestClient::with_tls_settings(
        ConfigMap::from([(
            "ssl.truststore.location".to_owned(),
            "/nonexistent/truststore.p12".to_owned(),
        )]),
        "",
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}/", listener.local_addr().unwrap());
    let e = get(&client, &url).await.unwrap_err();
    assert!(matches!(e, ClientError::Tls { .. }), "{e}");
    assert!(e.to_string().contains("ssl.truststore.location"), "{e}");
}
